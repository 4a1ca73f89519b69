// Every copy2d case copies its tile's rows intact and leaves every gap between them untouched
// (the benchmark's own verification), at the family's default rows and row sizes, GPU-timed,
// and reads itself against a contiguous copy of the same bytes measured in the same process.
// A pitch past what the device's copies take is skipped with its reason.
#include "gpu_test.hpp"

#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

TEST(Copy2dTiles, EveryCaseIsVerifiedWithSaneFigures) {
  GPUBENCH_REQUIRE_GPU();
  const std::vector<BenchmarkOutcome> outcomes = run_benchmarks("^copy2d/");
  // 2 directions x 2 APIs x 2 pitches x the default 1 row count x 3 row sizes.
  expect_all_verified(outcomes, 2U * 2U * 2U * 3U, "us_per_copy");
  for (const BenchmarkOutcome& outcome : outcomes) {
    if (outcome.failed) {
      continue;
    }
    for (const char* counter :
         {"bytes_per_second", "pct_of_contiguous", "contiguous_bytes_per_second"}) {
      ASSERT_TRUE(outcome.counters.contains(counter)) << outcome.name << ": " << counter;
      EXPECT_GT(outcome.counters.at(counter), 0.0) << outcome.name << ": " << counter;
    }
    EXPECT_LT(outcome.counters.at("bytes_per_second"), 2e12) << outcome.name;
    EXPECT_LT(outcome.counters.at("contiguous_bytes_per_second"), 2e12) << outcome.name;
    // The share agrees with the two rates it is made of.
    EXPECT_NEAR(outcome.counters.at("pct_of_contiguous"),
                100.0 * outcome.counters.at("bytes_per_second") /
                    outcome.counters.at("contiguous_bytes_per_second"),
                1e-6 * outcome.counters.at("pct_of_contiguous"))
        << outcome.name;
  }
}

TEST(Copy2dTiles, APitchPastTheDevicesLimitIsSkipped) {
  GPUBENCH_REQUIRE_GPU();
  expect_the_second_skipped(
      {"--benchmark_filter=^copy2d/HtoD/driver/pitch512/", "--copy2d-rows=4",
       "--copy2d-row-sizes=4K,4G"},
      "skipped: 4 rows of 4GiB at a pitch of 4294967808: a pitch of 4294967808 bytes is past");
}

} // namespace
} // namespace gpubench::testing
