// launch/start_latency/: from the host's launch call to the kernel's first instruction, through
// every path. Each run verifies its launches (every one counted and stamped in stream order,
// every echo of both clock relations answered in order, no launch before its call beyond the
// uncertainty); this checks the figures are whole and in the range a launch can have.
#include "gpu_test.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

TEST(StartLatencyPaths, EveryPathStartsAfterItsCallWithinAMillisecond) {
  GPUBENCH_REQUIRE_GPU();
  const std::vector<BenchmarkOutcome> outcomes = run_benchmarks("^launch/start_latency/");
  // One per path: six APIs and the graph.
  expect_all_verified(outcomes, 7, "start_latency_ns");
  for (const BenchmarkOutcome& outcome : outcomes) {
    if (outcome.failed) {
      continue;
    }
    const auto& c = outcome.counters;
    ASSERT_TRUE(c.contains("start_latency_p99_ns") && c.contains("clock_offset_uncertainty_ns") &&
                c.contains("clock_drift_ns") && c.contains("timer_step_ns") &&
                c.contains("stamped_launches"))
        << outcome.name;
    EXPECT_EQ(c.at("stamped_launches"), 1024.0) << outcome.name;
    const double latency = c.at("start_latency_ns");
    EXPECT_GT(latency, 0.0) << outcome.name;
    EXPECT_LT(latency, 1e6) << outcome.name;
    EXPECT_GE(c.at("start_latency_p99_ns"), latency) << outcome.name;
    // A figure no larger than what it may be off by says nothing.
    const double uncertainty = c.at("clock_offset_uncertainty_ns") + c.at("timer_step_ns") / 2.0;
    EXPECT_GT(uncertainty, 0.0) << outcome.name;
    EXPECT_LT(uncertainty, latency) << outcome.name;
    EXPECT_TRUE(std::isfinite(c.at("clock_drift_ns"))) << outcome.name;
  }
}

} // namespace
} // namespace gpubench::testing
