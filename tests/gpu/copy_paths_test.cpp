// Every copy case delivers its random bytes intact (the benchmark's own verification), at a
// size below a page, a page, and sizes where the copy engines' bulk path takes over.
#include "gpu_test.hpp"

namespace gpubench::testing {
namespace {

TEST(CopyPaths, EveryCaseDeliversItsBytes) {
  GPUBENCH_REQUIRE_GPU();
  const auto outcomes = run_benchmarks("^copy/");
  // (HtoD + DtoH) x (4 kinds x 2 apis + zerocopy) + 4 bidir + 2 DtoD + HtoH = 25 cases, 4 sizes
  // each.
  EXPECT_EQ(outcomes.size(), 25U * 4U);
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
