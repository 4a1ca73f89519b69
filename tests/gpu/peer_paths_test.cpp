// Every peer copy case between every ordered pair of GPUs delivers its random bytes intact (the
// benchmark's own verification); on a machine with one GPU the family registers nothing.
#include "benchmark_json.hpp"
#include "gpu_test.hpp"
#include "process.hpp"

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

// A size too large for the GPUs is skipped with its reason before anything is allocated for it,
// on the host too (4 TiB of expected bytes would fail to allocate, a failure and no skip), and
// the size that fits still runs.
TEST(PeerPaths, ASizeThatDoesNotFitIsSkippedWithItsReason) {
  GPUBENCH_REQUIRE_GPU();
  if (device_count() < 2) {
    GTEST_SKIP() << "peer copies need two GPUs";
  }
  ScratchDir scratch;
  const std::string out = scratch.path("fit.json");
  const Finished run =
      run_process({GPUBENCH_BINARY, "--benchmark_filter=^peer/ce/write/(0to1|allto0)/",
                   "--sizes=4K,4096G", "--benchmark_min_time=0.01", "--benchmark_out=" + out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const BenchmarkJson json = read_benchmark_json(out);
  ASSERT_TRUE(json.valid) << json.problem;
  std::map<std::string, JsonBenchmark> by_name;
  for (const JsonBenchmark& benchmark : json.benchmarks) {
    by_name[benchmark.name] = benchmark;
  }
  const JsonBenchmark& fits = by_name["peer/ce/write/0to1/4096/manual_time"];
  EXPECT_TRUE(fits.complete && !fits.error) << fits.message;
  for (const char* name : {"peer/ce/write/0to1/4398046511104/manual_time",
                           "peer/ce/write/allto0/4398046511104/manual_time"}) {
    const JsonBenchmark& too_large = by_name[name];
    EXPECT_TRUE(too_large.message.starts_with("skipped: 4TiB peer copies need 2 buffers of that "
                                              "size on GPU"))
        << name << ": " << too_large.message;
  }
}

} // namespace
} // namespace gpubench::testing
