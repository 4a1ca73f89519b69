// Every peer copy case between every ordered pair of GPUs delivers its random bytes intact (the
// benchmark's own verification); on a machine with one GPU the family registers nothing.
#include "gpu_test.hpp"

namespace gpubench::testing {
namespace {

TEST(PeerPaths, EveryCaseAndPairDeliversItsBytes) {
  GPUBENCH_REQUIRE_GPU();
  const auto outcomes = run_benchmarks("^peer/");
  const int gpus = device_count();
  if (gpus < 2) {
    EXPECT_TRUE(outcomes.empty());
    GTEST_SKIP() << "peer copies need two GPUs: " << gpus << " found";
  }
  // 2 engines x 3 modes x every ordered pair x 4 sizes.
  EXPECT_EQ(outcomes.size(), 6U * static_cast<std::size_t>(gpus * (gpus - 1)) * 4U);
  for (const BenchmarkOutcome& outcome : outcomes) {
    EXPECT_FALSE(outcome.failed) << outcome.name << ": " << outcome.message;
    if (!outcome.failed) {
      ASSERT_TRUE(outcome.counters.contains("us_per_copy")) << outcome.name;
      EXPECT_GT(outcome.counters.at("us_per_copy"), 0.0) << outcome.name;
    }
  }
}

} // namespace
} // namespace gpubench::testing
