#include "run_length.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpubench::bench {
namespace {

TEST(RunLength, HostTimedBenchmarksRunHalfASecondWhileTheRestGetTheShortDefault) {
  std::vector<std::string> args{"--benchmark_filter=copy"};
  ASSERT_TRUE(run_lengths(args).host_timed_seconds.has_value());
  EXPECT_DOUBLE_EQ(*run_lengths(args).host_timed_seconds, 0.5);
  add_default_min_time(args);
  ASSERT_EQ(args.size(), 2U);
  EXPECT_TRUE(args.back().starts_with("--benchmark_min_time=0.05")) << args.back();
}

TEST(RunLength, AMinTimeOnTheCommandLineGovernsEveryBenchmark) {
  std::vector<std::string> args{"--benchmark_min_time=2s"};
  EXPECT_FALSE(run_lengths(args).host_timed_seconds.has_value());
  add_default_min_time(args);
  EXPECT_EQ(args, std::vector<std::string>{"--benchmark_min_time=2s"});
}

} // namespace
} // namespace gpubench::bench
