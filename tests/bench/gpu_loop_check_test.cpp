// launch/gpu_loop's checks of what a loop's iterations left: their counters and their stamps.
#include "gpu_loop_check.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace gpubench::bench {
namespace {

GpuLoopCounters whole_loops(unsigned int iterations, unsigned long long loops) {
  GpuLoopCounters counters{};
  counters.ran = counters.intact = iterations * loops;
  return counters;
}

TEST(GpuLoopCheck, WholeLoopsPass) {
  EXPECT_EQ(loop_counts_mismatch(whole_loops(1024, 7), 1024, 7), std::nullopt);
  EXPECT_EQ(loop_counts_mismatch(whole_loops(1, 1), 1, 1), std::nullopt);
}

TEST(GpuLoopCheck, AMissingOrExtraIterationFails) {
  GpuLoopCounters counters = whole_loops(16, 3);
  --counters.ran;
  --counters.intact;
  const std::optional<std::string> short_by_one = loop_counts_mismatch(counters, 16, 3);
  ASSERT_TRUE(short_by_one);
  EXPECT_NE(short_by_one->find("47 iterations ran"), std::string::npos) << *short_by_one;
  EXPECT_TRUE(loop_counts_mismatch(whole_loops(16, 4), 16, 3));
}

TEST(GpuLoopCheck, ParametersNotIntactFail) {
  GpuLoopCounters counters = whole_loops(16, 1);
  counters.intact = 15;
  EXPECT_TRUE(loop_counts_mismatch(counters, 16, 1));
}

TEST(GpuLoopCheck, AStrayIterationIsNamed) {
  GpuLoopCounters counters = whole_loops(16, 1);
  ++counters.ran;
  ++counters.intact;
  counters.strays = 1;
  const std::optional<std::string> stray = loop_counts_mismatch(counters, 16, 1);
  ASSERT_TRUE(stray);
  EXPECT_NE(stray->find("with none left"), std::string::npos) << *stray;
}

TEST(GpuLoopCheck, ALoopLeftUnfinishedFails) {
  GpuLoopCounters counters = whole_loops(16, 1);
  counters.remaining = 2;
  EXPECT_TRUE(loop_counts_mismatch(counters, 16, 1));
}

TEST(GpuLoopCheck, AFailedDeviceLaunchIsNamedByItsError) {
  GpuLoopCounters counters = whole_loops(16, 1);
  counters.launch_failures = 1;
  counters.first_failure = static_cast<unsigned int>(cudaErrorInvalidValue);
  counters.failed_at_remaining = 5;
  const std::optional<std::string> failed = loop_counts_mismatch(counters, 16, 1);
  ASSERT_TRUE(failed);
  EXPECT_NE(failed->find("cudaErrorInvalidValue (1)"), std::string::npos) << *failed;
  EXPECT_NE(failed->find("5 of 16"), std::string::npos) << *failed;
}

TEST(GpuLoopCheck, IterationsOneAfterAnotherPass) {
  const std::vector<GpuLoopStamp> stamps{{100, 132}, {132, 164}, {200, 200}};
  EXPECT_EQ(loop_order_mismatch(stamps), std::nullopt);
  EXPECT_EQ(loop_order_mismatch({}), std::nullopt);
}

TEST(GpuLoopCheck, AnUnstampedIterationFails) {
  const std::vector<GpuLoopStamp> stamps{{100, 132}, {0, 0}, {200, 232}};
  const std::optional<std::string> missing = loop_order_mismatch(stamps);
  ASSERT_TRUE(missing);
  EXPECT_TRUE(missing->starts_with("iteration 1 of 3")) << *missing;
  EXPECT_TRUE(loop_order_mismatch(std::vector<GpuLoopStamp>{{100, 99}}));
}

TEST(GpuLoopCheck, OverlappingIterationsFail) {
  const std::vector<GpuLoopStamp> stamps{{100, 164}, {132, 196}};
  const std::optional<std::string> overlap = loop_order_mismatch(stamps);
  ASSERT_TRUE(overlap);
  EXPECT_NE(overlap->find("before iteration 0 ended"), std::string::npos) << *overlap;
}

} // namespace
} // namespace gpubench::bench
