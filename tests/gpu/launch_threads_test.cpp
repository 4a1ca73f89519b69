// launch/threads/<path>/<streams>/host_threads:<n> and launch/host_func/roundtrip. Each run
// verifies its launches (the GPU counted as many probes, each with its parameters intact, as all
// threads launched; host functions counted themselves as often as they were enqueued); this checks
// every case runs verified with figures that agree with each other.
#include "gpu_test.hpp"

#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

TEST(LaunchThreads, EveryThreadCountIsVerifiedWithFiguresThatAgree) {
  GPUBENCH_REQUIRE_GPU();
  const std::vector<BenchmarkOutcome> outcomes = run_benchmarks("^launch/threads/");
  // runtime and driver, own_stream and one_stream, at 1, 2, 4, 8 and 16 threads.
  expect_all_verified(outcomes, 2 * 2 * 5, "us_per_launch");
  for (const BenchmarkOutcome& outcome : outcomes) {
    if (outcome.failed) {
      continue;
    }
    const auto& c = outcome.counters;
    for (const char* counter : {"launches_per_second", "us_per_thread_launch", "host_threads",
                                "launches_per_batch", "host_cpus"}) {
      ASSERT_TRUE(c.contains(counter)) << outcome.name << " has no " << counter;
    }
    const std::string threads = outcome.name.substr(outcome.name.find("host_threads:") + 13);
    EXPECT_EQ(c.at("host_threads"), std::stod(threads.substr(0, threads.find('/'))))
        << outcome.name;
    EXPECT_EQ(c.at("launches_per_batch"), 32.0 * c.at("host_threads")) << outcome.name;
    EXPECT_NEAR(c.at("launches_per_second") * c.at("us_per_launch"), 1e6, 1e-3) << outcome.name;
    EXPECT_NEAR(c.at("us_per_thread_launch"), c.at("us_per_launch") * c.at("host_threads"),
                1e-9 * c.at("us_per_thread_launch"))
        << outcome.name;
    // No launch takes a thread a millisecond, however many threads queue for the driver.
    EXPECT_LT(c.at("us_per_thread_launch"), 1000.0) << outcome.name;
  }
}

TEST(LaunchThreads, AHostFunctionComesBackVerified) {
  GPUBENCH_REQUIRE_GPU();
  const std::vector<BenchmarkOutcome> outcomes = run_benchmarks("^launch/host_func/roundtrip/");
  expect_all_verified(outcomes, 1, "us_per_launch");
  for (const BenchmarkOutcome& outcome : outcomes) {
    if (!outcome.failed) {
      // The untimed first call, the warm-up and at least three batches of 16.
      EXPECT_GE(outcome.counters.at("calls"), 1.0 + 1.0 + 3.0 * 16.0) << outcome.name;
      // A hand-off to the driver's thread and back, well under the 1 s the benchmark allows.
      EXPECT_LT(outcome.counters.at("us_per_launch"), 10000.0) << outcome.name;
    }
  }
}

} // namespace
} // namespace gpubench::testing
