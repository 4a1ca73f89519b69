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
  expect_all_verified(outcomes, 6U * static_cast<std::size_t>(gpus * (gpus - 1)) * 4U,
                      "us_per_copy");
}

} // namespace
} // namespace gpubench::testing
