// launch/gpu_loop/<driver>/length:<n>: a loop of n one-thread kernels driven by the host or
// by the GPU itself. Each run verifies the iterations' counts and their order; this checks every
// driver runs so at both default lengths, with figures that agree with each other.
#include "gpu_test.hpp"

#include <map>
#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

std::string driver_of(const std::string& name) {
  const std::string rest = name.substr(std::string("launch/gpu_loop/").size());
  return rest.substr(0, rest.find('/'));
}

TEST(GpuLoop, EveryDriverRunsEveryIterationInOrder) {
  GPUBENCH_REQUIRE_GPU();
  const std::vector<BenchmarkOutcome> outcomes = run_benchmarks("^launch/gpu_loop/");
  // host_stream, host_graph, while_node, if_chain, tail_launch and fire_and_forget at 16 and 1024.
  expect_all_verified(outcomes, 6 * 2, "us_per_iteration");
  std::map<std::string, double> host_us_at_1024; // by driver
  for (const BenchmarkOutcome& outcome : outcomes) {
    if (outcome.failed) {
      continue;
    }
    const auto& c = outcome.counters;
    ASSERT_TRUE(c.contains("loop_iterations") && c.contains("host_us_per_iteration"))
        << outcome.name;
    const double n = c.at("loop_iterations");
    EXPECT_TRUE(n == 16.0 || n == 1024.0) << outcome.name;
    // The Time column is one whole loop.
    EXPECT_NEAR(outcome.seconds_per_iteration * 1e6, c.at("us_per_iteration") * n,
                1e-6 * c.at("us_per_iteration") * n)
        << outcome.name;
    // No way of running a one-thread kernel takes a millisecond an iteration.
    EXPECT_LT(c.at("us_per_iteration"), 1000.0) << outcome.name;
    EXPECT_GT(c.at("host_us_per_iteration"), 0.0) << outcome.name;
    if (n == 1024.0) {
      host_us_at_1024[driver_of(outcome.name)] = c.at("host_us_per_iteration");
    }
  }
  ASSERT_EQ(host_us_at_1024.size(), 6U);
  // Where the GPU drives the loop the host issues one graph launch, not 1024 launches.
  for (const char* gpu_driven : {"while_node", "if_chain", "tail_launch", "fire_and_forget"}) {
    EXPECT_LT(host_us_at_1024.at(gpu_driven), host_us_at_1024.at("host_stream")) << gpu_driven;
    EXPECT_LT(host_us_at_1024.at(gpu_driven), host_us_at_1024.at("host_graph")) << gpu_driven;
  }
}

} // namespace
} // namespace gpubench::testing
