// Every peer copy case between every ordered pair of GPUs delivers its random bytes intact (the
// benchmark's own verification); on a machine with one GPU the family registers nothing.
#include "gpu_test.hpp"

#include <map>
#include <string>

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
  // 2 engines x 3 modes x every ordered pair x 4 sizes (--sizes named: every pair sweeps), and
  // 2 engines x 2 modes x the patterns (allto<d> and <s>toall for each GPU, and bisect) at the
  // largest.
  const auto n = static_cast<std::size_t>(gpus);
  expect_all_verified(outcomes, 6U * n * (n - 1) * 4U + 4U * (2U * n + 1U), "us_per_copy");
}

// A pattern's copies run at once: both ways across the link at once (bisect) carry more than
// one way alone, each into its own buffer, every byte checked by the benchmark.
TEST(PeerTraffic, BisectCarriesMoreThanOneWay) {
  GPUBENCH_REQUIRE_GPU();
  if (device_count() < 2) {
    GTEST_SKIP() << "peer patterns need two GPUs";
  }
  const auto outcomes = run_benchmarks("^peer/ce/write/(0to1/67108864|bisect|allto0|0toall)/");
  expect_all_verified(outcomes, 4U, "us_per_copy");
  std::map<std::string, double> us; // time per operation at 64 MiB, by pattern
  for (const BenchmarkOutcome& outcome : outcomes) {
    const std::size_t start = std::string("peer/ce/write/").size();
    us[outcome.name.substr(start, outcome.name.find('/', start) - start)] =
        outcome.counters.at("us_per_copy");
  }
  // Two copies at once in less than 4/3 of one copy's time: over 1.5 times its bandwidth.
  const double one_way = us.at("0to1");
  EXPECT_LT(us.at("bisect"), one_way * 2.0 / 1.5);
  // allto0 and 0toall hold one copy per other GPU: with two GPUs, the pair's.
  if (device_count() == 2) {
    EXPECT_NEAR(us.at("0toall"), one_way, 0.1 * one_way);
    EXPECT_NEAR(us.at("allto0"), us.at("0toall"), 0.1 * one_way) << "1to0 and 0to1 alike";
  }
}

} // namespace
} // namespace gpubench::testing
