// sm_clock_kernel_mhz: the SM clock a kernel reads after every benchmark's timed loop, beside
// NVML's reading at the loop's end.
#include "gpu_test.hpp"

#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

// As gpubench labels a loop throttled (ClockWatch): a clock-limiting policy held the clocks,
// or NVML's SM clock fell more than 10% across the loop.
bool throttled(const std::map<std::string, double>& c) {
  const bool limited = c.contains("clock_limited_ms") && c.at("clock_limited_ms") > 0.0;
  const bool fell = c.at("sm_clock_end_mhz") < 0.9 * c.at("sm_clock_start_mhz");
  return limited || fell;
}

TEST(KernelClock, AKernelReadsTheClockNvmlReports) {
  GPUBENCH_REQUIRE_GPU();
  // A host-clock, a gated GPU-time and a kernel-timed benchmark.
  const std::vector<BenchmarkOutcome> outcomes = run_benchmarks(
      "^(launch/driver/submit/params:0|saxpy/driver/1048576|latency/chase/device/4096)/");
  ASSERT_EQ(outcomes.size(), 3U);
  for (const BenchmarkOutcome& outcome : outcomes) {
    ASSERT_FALSE(outcome.failed) << outcome.name << ": " << outcome.message;
    const auto& c = outcome.counters;
    ASSERT_TRUE(c.contains("sm_clock_kernel_mhz")) << outcome.name;
    const double kernel_mhz = c.at("sm_clock_kernel_mhz");
    EXPECT_GE(kernel_mhz, 50.0) << outcome.name;
    EXPECT_LE(kernel_mhz, 2500.0) << outcome.name;
    if (!c.contains("sm_clock_end_mhz")) {
      continue; // no NVML: nothing to hold it against
    }
    if (throttled(c)) {
      continue;
    }
    EXPECT_LT(std::abs(kernel_mhz - c.at("sm_clock_end_mhz")), 0.1 * c.at("sm_clock_end_mhz"))
        << outcome.name << ": the kernel read " << kernel_mhz << " MHz, NVML "
        << c.at("sm_clock_end_mhz");
  }
}

} // namespace
} // namespace gpubench::testing
