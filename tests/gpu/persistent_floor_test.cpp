// launch/persistent/roundtrip: a persistent kernel fed work through host memory, the floor under
// a launch's roundtrip. Its run verifies every work item was answered with its number, in
// order; this checks it is the floor (below a launch and its synchronisation through the
// driver), and that an interrupt still ends gpubench promptly while the kernel spins.
#include "gpu_test.hpp"
#include "process.hpp"

#include <chrono>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

namespace gpubench::testing {
namespace {

TEST(PersistentFloor, AnswersEveryItemFasterThanALaunchRoundtrip) {
  GPUBENCH_REQUIRE_GPU();
  const std::vector<BenchmarkOutcome> persistent = run_benchmarks("^launch/persistent/");
  expect_all_verified(persistent, 1, "us_per_launch");
  const std::vector<BenchmarkOutcome> driver =
      run_benchmarks("^launch/driver/roundtrip/params:0(/|$)");
  expect_all_verified(driver, 1, "us_per_launch");
  if (persistent.size() != 1 || driver.size() != 1 || persistent[0].failed || driver[0].failed) {
    return;
  }
  const auto& c = persistent[0].counters;
  ASSERT_TRUE(c.contains("items"));
  EXPECT_GT(c.at("items"), 0.0);
  EXPECT_LT(c.at("us_per_launch"), driver[0].counters.at("us_per_launch"));
}

// SIGINT while the persistent kernel spins: gpubench stops it and exits as interrupted,
// within seconds, not at the kernel's idle limit or never.
TEST(PersistentFloor, AnInterruptEndsTheRunWhileTheKernelSpins) {
  GPUBENCH_REQUIRE_GPU();
  const ScratchDir scratch;
  // Hundreds of repetitions keep the kernel spinning for far longer than the test waits.
  Process gpubench({GPUBENCH_BINARY, "--benchmark_filter=^launch/persistent/roundtrip",
                    "--benchmark_repetitions=500", "--benchmark_out=" + scratch.path("run.json")},
                   Stream::captured, Stream::captured, Group::own);
  std::this_thread::sleep_for(std::chrono::seconds(5));
  gpubench.send(SIGINT);
  const Finished run = gpubench.wait(std::chrono::seconds(20));
  EXPECT_FALSE(run.timed_out) << "gpubench did not stop within 20 s of SIGINT";
  EXPECT_EQ(run.signal, 0) << "killed by the signal instead of handling it";
  EXPECT_EQ(run.exit_code, 128 + SIGINT) << run.err;
  EXPECT_NE(run.err.find("interrupted by SIGINT"), std::string::npos) << run.err;
}

} // namespace
} // namespace gpubench::testing
