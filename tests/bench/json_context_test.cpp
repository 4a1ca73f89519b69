#include "json_context.hpp"

#include <gtest/gtest.h>

namespace gpubench::bench {
namespace {

TEST(JsonContext, AddsAKeyFirstInTheContextObject) {
  const std::string json = "{\n  \"context\": {\n    \"date\": \"x\"\n  },\n  \"benchmarks\": []\n}\n";
  EXPECT_EQ(with_json_context(json, "gpu_state_after", "1980 MHz \"SM\"\n"),
            "{\n  \"context\": {\n    \"gpu_state_after\": \"1980 MHz \\\"SM\\\"\\u000a\",\n"
            "    \"date\": \"x\"\n  },\n  \"benchmarks\": []\n}\n");
}

TEST(JsonContext, ADocumentWithoutContextGetsNone) {
  EXPECT_EQ(with_json_context("[1, 2]", "k", "v"), std::nullopt);
}

} // namespace
} // namespace gpubench::bench
