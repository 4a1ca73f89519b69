#include "json_context.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpubench::bench {
namespace {

std::string read(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(JsonContext, AddsAKeyToTheContextObject) {
  const auto file = std::filesystem::temp_directory_path() / "gpubench_json_context_test.json";
  std::ofstream(file) << "{\n  \"context\": {\n    \"date\": \"x\"\n  },\n  \"benchmarks\": []\n}\n";
  ASSERT_TRUE(add_json_context(file, "gpu_state_after", "1980 MHz \"SM\""));
  EXPECT_EQ(read(file), "{\n  \"context\": {\n    \"gpu_state_after\": \"1980 MHz \\\"SM\\\"\",\n"
                        "    \"date\": \"x\"\n  },\n  \"benchmarks\": []\n}\n");
  std::filesystem::remove(file);
}

TEST(JsonContext, LeavesAFileWithoutContextAlone) {
  const auto file = std::filesystem::temp_directory_path() / "gpubench_json_context_none.json";
  std::ofstream(file) << "[1, 2]";
  EXPECT_FALSE(add_json_context(file, "k", "v"));
  EXPECT_EQ(read(file), "[1, 2]");
  std::filesystem::remove(file);
}

} // namespace
} // namespace gpubench::bench
