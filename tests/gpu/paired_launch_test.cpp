// launch/paired/: every path timed in the same rounds, at every payload. Each run verifies its
// own launches (the device counter saw every one, with its parameters intact); this checks
// that every ratio it reports (against the other paths and the host references) is a finite
// positive figure inside its own 95% interval, that each host reference took time, that the
// rounds ran in the blocks the intervals are drawn over, and that the figure, a launch counted
// in system calls, is what the API paths' costs over host_syscall give.
#include "gpu_test.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

const std::vector<std::string> paths{"runtime", "runtime_launchkernel", "runtime_launchkernelex",
                                     "driver",  "driver_extra",         "driver_launchkernelex",
                                     "graph"};
// Work on the host alone, timed in the same rounds (bench/harness/host_reference.hpp).
const std::vector<std::string> host_references{"host_spin", "host_syscall", "host_memory"};

void expect_ratio(const BenchmarkOutcome& outcome, const std::string& key, bool has_verdict) {
  const auto& c = outcome.counters;
  ASSERT_TRUE(c.contains(key) && c.contains(key + "_lo") && c.contains(key + "_hi"))
      << outcome.name << ": " << key;
  const double ratio = c.at(key);
  const double lo = c.at(key + "_lo");
  const double hi = c.at(key + "_hi");
  EXPECT_TRUE(std::isfinite(lo) && std::isfinite(hi)) << outcome.name << ": " << key;
  EXPECT_GT(lo, 0.0) << outcome.name << ": " << key;
  EXPECT_LE(lo, ratio) << outcome.name << ": " << key;
  EXPECT_LE(ratio, hi) << outcome.name << ": " << key;
  if (has_verdict) {
    ASSERT_TRUE(c.contains(key + "_resolved")) << outcome.name << ": " << key;
    const double resolved = c.at(key + "_resolved");
    EXPECT_TRUE(resolved == 0.0 || resolved == 1.0) << outcome.name << ": " << key;
  }
}

// The geometric mean over the API paths (not the graph) of each one's cost per launch in
// getppid calls: its batch of 32 launches over 64 system calls.
double syscalls_per_launch(const BenchmarkOutcome& outcome) {
  double log_sum = 0.0;
  int api_paths = 0;
  for (const std::string& path : paths) {
    if (path != "graph") {
      log_sum += std::log(outcome.counters.at(path + "_over_host_syscall") * 64.0 / 32.0);
      ++api_paths;
    }
  }
  return std::exp(log_sum / api_paths);
}

TEST(PairedLaunch, EveryPayloadReportsEachPathsRatiosInsideTheirIntervals) {
  GPUBENCH_REQUIRE_GPU();
  const std::vector<BenchmarkOutcome> outcomes = run_benchmarks("^launch/paired/submit/");
  // One per payload: 0, 8, 256, 4096 and 32764 bytes.
  expect_all_verified(outcomes, 5, "launches");
  for (const BenchmarkOutcome& outcome : outcomes) {
    if (outcome.failed) {
      continue;
    }
    const bool at_zero =
        outcome.name.find("/params:0/") != std::string::npos || outcome.name.ends_with("/params:0");
    // The harness's lone round, its warm-up batch and at least three timed batches of 72
    // rounds, in blocks of 24 (the first holding the lone round too).
    const double rounds = outcome.counters.at("rounds");
    const double blocks = outcome.counters.at("blocks");
    EXPECT_GE(rounds, 289.0) << outcome.name;
    EXPECT_EQ(blocks, (rounds - 1.0) / 24.0) << outcome.name;
    // Every round launched, the recorded ones and each block's untimed warm-up round.
    const double slots = at_zero ? 8.0 : 15.0;
    EXPECT_EQ(outcome.counters.at("launches"),
              outcome.counters.at("launches_per_batch") * slots * (rounds + blocks))
        << outcome.name;
    expect_ratio(outcome, "same_path_vs_runtime", false);
    for (const std::string& reference : host_references) {
      ASSERT_TRUE(outcome.counters.contains(reference + "_us"))
          << outcome.name << ": " << reference;
      EXPECT_GT(outcome.counters.at(reference + "_us"), 0.0) << outcome.name << ": " << reference;
    }
    for (const std::string& path : paths) {
      ASSERT_TRUE(outcome.counters.contains(path + "_us")) << outcome.name << ": " << path;
      EXPECT_GT(outcome.counters.at(path + "_us"), 0.0) << outcome.name << ": " << path;
      for (const std::string reference : {"runtime", "driver"}) {
        if (path != reference) {
          expect_ratio(outcome, path + "_vs_" + reference, true);
        }
      }
      if (path != "graph") {
        expect_ratio(outcome, "graph_vs_" + path, true);
      }
      for (const std::string& reference : host_references) {
        expect_ratio(outcome, path + "_over_" + reference, false);
      }
      if (at_zero) {
        EXPECT_FALSE(outcome.counters.contains(path + "_vs_params0")) << outcome.name;
      } else {
        expect_ratio(outcome, path + "_vs_params0", true);
      }
    }
    ASSERT_TRUE(outcome.counters.contains("syscalls_per_launch")) << outcome.name;
    EXPECT_NEAR(outcome.counters.at("syscalls_per_launch"), syscalls_per_launch(outcome),
                1e-6 * syscalls_per_launch(outcome))
        << outcome.name;
    EXPECT_GT(outcome.counters.at("syscalls_per_launch"), 0.0) << outcome.name;
    EXPECT_EQ(outcome.counters.at("host_referenced"), 1.0) << outcome.name;
  }
}

} // namespace
} // namespace gpubench::testing
