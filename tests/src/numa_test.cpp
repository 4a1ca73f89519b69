#include "numa.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gpubench {
namespace {

TEST(ParseCpuList, RangesAndSingles) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list("5"), std::vector<int>{5});
  EXPECT_TRUE(parse_cpu_list("").empty());
}

TEST(ParseCpuList, RejectsGarbage) {
  EXPECT_THROW(static_cast<void>(parse_cpu_list("a-b")), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(parse_cpu_list("7-3")), std::invalid_argument);
}

TEST(BindToNumaNode, SaysWhyItDidNotBind) {
  EXPECT_EQ(bind_to_numa_node(-1), "not bound: the driver reports no NUMA node for the GPU");
  EXPECT_EQ(bind_to_numa_node(0, "/nonexistent"), "node 0 (the only one)");
}

} // namespace
} // namespace gpubench
