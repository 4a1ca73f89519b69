#pragma once

#include "context.hpp"
#include "stream.hpp"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpubench::testing {

// Why no GPU test can run here ("no CUDA device: ..."), or nullopt where device 0 is usable.
[[nodiscard]] std::optional<std::string> gpu_unavailable();

// Base for tests that need device 0: skips with the reason where there is none, otherwise owns
// the primary context and a stream for the test.
class GpuTest : public ::testing::Test {
protected:
  void SetUp() override;
  void TearDown() override;
  [[nodiscard]] CUstream stream() const { return stream_->get(); }
  [[nodiscard]] CUdevice device() const { return context_->device(); }

private:
  std::optional<PrimaryContext> context_;
  std::optional<Stream> stream_;
};

// One benchmark's result as gpubench's own code reported it.
struct BenchmarkOutcome {
  std::string name;
  bool failed = false;
  std::string message;
  std::int64_t iterations = 0;
  double seconds_per_iteration = 0; // the Time column, in seconds
  std::map<std::string, double> counters;
};

// Runs gpubench's registered benchmarks matching `filter` (a regex), briefly, on device 0.
[[nodiscard]] std::vector<BenchmarkOutcome> run_benchmarks(const std::string& filter);

// Expects `expected_count` outcomes, each one passed its own verification, ran iterations,
// reported a positive `counter` and the timed loop's batches, noise_pct and host_timed (1 for
// what the host paces: launch/ but launch/gpu_gap/, launch/shape/.../gpu_gap,
// launch/graph_nodes/replay_gpu/ and the loops the GPU drives, launch/gpu_loop/ but its host_*
// drivers; .../sync/ and .../sync_paired/), and the SM clock its kernel read after the loop (sm_clock_kernel_mhz,
// 50 to 2500 MHz).
void expect_all_verified(const std::vector<BenchmarkOutcome>& outcomes, std::size_t expected_count,
                         const char* counter);

// Expects the figures every GPU-gap benchmark reports (launch/gpu_gap/, the mechanisms' and the
// shapes' gaps): gap_ns, gap_p99_ns and timer_step_ns present, four batches of 255 gaps, a
// median gap from 0 to 100 µs at or below its 99th percentile, a global timer stepping in
// nanoseconds to a microsecond.
void expect_gap_figures(const BenchmarkOutcome& outcome);

// Runs the gpubench binary with `flags` (a filter matching two benchmarks, a size each) into a
// result file and expects both written: the first run without error, the second skipped with a
// message that starts with `skipped`.
void expect_the_second_skipped(const std::vector<std::string>& flags, const std::string& skipped);

} // namespace gpubench::testing

#define GPUBENCH_REQUIRE_GPU()                                                                     \
  if (const auto why = ::gpubench::testing::gpu_unavailable()) {                                   \
    GTEST_SKIP() << *why;                                                                          \
  }
