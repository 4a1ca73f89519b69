// Every overlap case moves its random bytes intact and computes its saxpy exactly (the
// benchmark's own verification: every byte of every copy after the timed loop, then one more
// round at once with the saxpy's y against the CPU's reference), at the family's default sizes,
// with figures that agree with each other: no stream faster at once than alone (beyond noise),
// the overlap between taking turns and every stream at its pace. A combination needing more
// copy engines than the device reports is skipped, naming the attribute; a size that does not
// fit is skipped with its reason.
#include "cuda_error.hpp"
#include "gpu_test.hpp"
#include "stream_combos.hpp"

#include <cuda_runtime_api.h>

#include <cmath>
#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

// The combination of an overlap name: its second component.
const bench::StreamCombo* combo_of(const std::string& name) {
  const std::size_t begin = name.find('/') + 1;
  const std::string combo = name.substr(begin, name.find('/', begin) - begin);
  for (const bench::StreamCombo& known : bench::stream_combos()) {
    if (known.name() == combo) {
      return &known;
    }
  }
  return nullptr;
}

// The size: the third component.
double size_of(const std::string& name) {
  const std::size_t begin = name.find('/', name.find('/') + 1) + 1;
  return std::stod(name.substr(begin, name.find('/', begin) - begin));
}

double counter(const BenchmarkOutcome& outcome, const std::string& key) {
  EXPECT_TRUE(outcome.counters.contains(key)) << outcome.name << ": " << key;
  return outcome.counters.contains(key) ? outcome.counters.at(key) : 0.0;
}

TEST(OverlapEngines, EveryCaseIsVerifiedWithSaneFigures) {
  GPUBENCH_REQUIRE_GPU();
  const std::vector<BenchmarkOutcome> outcomes = run_benchmarks("^overlap/");
  // 6 combinations x the default 2 sizes.
  EXPECT_EQ(outcomes.size(), 6U * 2U);
  int engines = 0;
  GPUBENCH_CUDART(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, 0));
  std::vector<BenchmarkOutcome> ran;
  for (const BenchmarkOutcome& outcome : outcomes) {
    const bench::StreamCombo* combo = combo_of(outcome.name);
    ASSERT_NE(combo, nullptr) << outcome.name;
    if (engines < combo->copy_engines_needed()) {
      EXPECT_TRUE(outcome.failed) << outcome.name;
      EXPECT_NE(outcome.message.find("(cudaDevAttrAsyncEngineCount)"), std::string::npos)
          << outcome.name << ": " << outcome.message;
      continue;
    }
    ran.push_back(outcome);
  }
  expect_all_verified(ran, ran.size(), "overlap");
  for (const BenchmarkOutcome& outcome : ran) {
    if (outcome.failed) {
      continue;
    }
    const bench::StreamCombo& combo = *combo_of(outcome.name);
    const auto streams = static_cast<double>(combo.works.size());
    const double bytes = size_of(outcome.name);
    EXPECT_EQ(counter(outcome, "copy_engines"), engines) << outcome.name;
    const double overlap = counter(outcome, "overlap");
    const double ideal = counter(outcome, "overlap_ideal");
    // Between worse than taking turns and every stream at its pace alone.
    EXPECT_GT(overlap, 0.5) << outcome.name;
    EXPECT_LT(overlap, streams + 0.1) << outcome.name;
    EXPECT_LT(overlap, ideal * 1.1) << outcome.name;
    // Rounds are sized so each stream alone lasts about as long as the longest.
    EXPECT_GE(ideal, 1.0) << outcome.name;
    EXPECT_LE(ideal, streams + 1e-9) << outcome.name;
    const double round_seconds = counter(outcome, "us_per_round") * 1e-6;
    EXPECT_GE(round_seconds, 0.5e-3) << outcome.name;
    double copy_bytes = 0.0;
    double slowest = 1e300;
    const std::vector<std::string> labels = combo.labels();
    for (std::size_t i = 0; i < labels.size(); ++i) {
      const std::string& label = labels[i];
      const double together = counter(outcome, label + "_bytes_per_second");
      const double alone = counter(outcome, label + "_alone_bytes_per_second");
      const double pct = counter(outcome, label + "_pct_of_alone");
      const double ops = counter(outcome, label + "_ops_per_round");
      EXPECT_GE(ops, 1.0) << outcome.name << " " << label;
      EXPECT_LE(ops, 256.0) << outcome.name << " " << label;
      // No stream is faster beside others than alone, beyond noise.
      EXPECT_GT(pct, 0.0) << outcome.name << " " << label;
      EXPECT_LE(pct, 110.0) << outcome.name << " " << label;
      EXPECT_NEAR(100.0 * together / alone / pct, 1.0, 1e-6) << outcome.name << " " << label;
      slowest = std::min(slowest, pct);
      const bool copy = combo.works[i] != bench::StreamWork::saxpy;
      // A copy over any host link, a saxpy within any GPU's memory.
      EXPECT_GT(together, 1e8) << outcome.name << " " << label;
      EXPECT_LT(together, copy ? 1e12 : 2e13) << outcome.name << " " << label;
      // A stream's own round at once is never longer than the round.
      const double round_bytes = ops * (copy ? bytes : 3.0 * bytes);
      EXPECT_LE(round_bytes / together, round_seconds * 1.05) << outcome.name << " " << label;
      if (copy) {
        copy_bytes += round_bytes;
      }
    }
    EXPECT_DOUBLE_EQ(counter(outcome, "slowest_pct_of_alone"), slowest) << outcome.name;
    // bytes_per_second: the copies' bytes of a round over the round.
    EXPECT_NEAR(counter(outcome, "bytes_per_second") * round_seconds / copy_bytes, 1.0, 1e-6)
        << outcome.name;
  }
}

// A size the device cannot hold is skipped with its reason, not failed; the smaller size in the
// same run still runs.
TEST(OverlapEngines, ASizePastDeviceMemoryIsSkipped) {
  GPUBENCH_REQUIRE_GPU();
  expect_the_second_skipped({"--benchmark_filter=^overlap/HtoD_saxpy/", "--overlap-sizes=4K,4096G"},
                            "skipped: 4TiB a stream: 7 x 4TiB of device memory needed");
}

} // namespace
} // namespace gpubench::testing
