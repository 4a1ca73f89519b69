// launch/gpu_gap/: each path's back-to-back launches as the GPU's own timer sees them. Each run
// verifies its launches (the GPU counted every one, and every kernel of a gap batch stamped in
// stream order); this checks the figures those stamps give are whole and consistent.
#include "gpu_test.hpp"

#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

TEST(GpuGap, EveryPathsKernelsStampTheirGapsInStreamOrder) {
  GPUBENCH_REQUIRE_GPU();
  // The API paths; the launch mechanisms' (launch_mechanisms_test.cpp) are checked with theirs.
  const std::vector<BenchmarkOutcome> outcomes =
      run_benchmarks("^launch/gpu_gap/(runtime|driver|graph)[a-z_]*/params:0/");
  // One per path: six APIs and the graph.
  expect_all_verified(outcomes, 7, "gaps");
  for (const BenchmarkOutcome& outcome : outcomes) {
    if (outcome.failed) {
      continue;
    }
    ASSERT_NO_FATAL_FAILURE(expect_gap_figures(outcome));
  }
}

} // namespace
} // namespace gpubench::testing
