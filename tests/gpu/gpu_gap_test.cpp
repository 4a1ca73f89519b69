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
    const auto& c = outcome.counters;
    ASSERT_TRUE(c.contains("gap_ns") && c.contains("gap_p99_ns") && c.contains("timer_step_ns"))
        << outcome.name;
    // Four gap batches of 256 launches: 255 gaps each.
    EXPECT_EQ(c.at("gaps"), 4.0 * 255.0) << outcome.name;
    EXPECT_GE(c.at("gap_ns"), 0.0) << outcome.name;
    EXPECT_GE(c.at("gap_p99_ns"), c.at("gap_ns")) << outcome.name;
    // The global timer steps in nanoseconds to a microsecond on every GPU CUDA documents it for.
    EXPECT_GT(c.at("timer_step_ns"), 0.0) << outcome.name;
    EXPECT_LE(c.at("timer_step_ns"), 1000.0) << outcome.name;
    // Queued behind the gate, the launches run back to back: a median gap of 100 µs would be a
    // GPU waiting on its host, not one launch following another.
    EXPECT_LT(c.at("gap_ns"), 100000.0) << outcome.name;
  }
}

} // namespace
} // namespace gpubench::testing
