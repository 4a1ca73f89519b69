// launch/graph_nodes/: what a graph of n kernel nodes costs per node. Each run verifies that
// every node of every graph launched ran (the GPU's launch counter); this checks the figures
// are whole and ordered as the work behind them is.
#include "gpu_test.hpp"

#include <map>
#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

TEST(GraphNodes, EveryNodeRunsAndAReplayCostsLessThanAFirstLaunch) {
  GPUBENCH_REQUIRE_GPU();
  const std::vector<BenchmarkOutcome> outcomes = run_benchmarks("^launch/graph_nodes/");
  // Five steps at 1, 16, 256 and 2048 nodes.
  expect_all_verified(outcomes, 5 * 4, "us_per_node");
  std::map<std::string, std::map<std::string, double>> counters; // by step, then node count
  for (const BenchmarkOutcome& outcome : outcomes) {
    if (outcome.failed) {
      continue;
    }
    const auto& c = outcome.counters;
    ASSERT_TRUE(c.contains("us_per_graph") && c.contains("nodes")) << outcome.name;
    EXPECT_NEAR(c.at("us_per_graph"), c.at("us_per_node") * c.at("nodes"),
                1e-9 * c.at("us_per_graph"))
        << outcome.name;
    // launch/graph_nodes/<step>/nodes:<n>, and Google Benchmark's /manual_time after it
    const std::string rest = outcome.name.substr(std::string("launch/graph_nodes/").size());
    const std::string step = rest.substr(0, rest.find('/'));
    const std::string nodes = rest.substr(rest.find("nodes:"));
    counters[step][nodes.substr(0, nodes.find('/'))] = c.at("us_per_node");
  }
  ASSERT_EQ(counters.size(), 5U);
  for (const char* nodes : {"nodes:1", "nodes:16", "nodes:256", "nodes:2048"}) {
    for (const auto& [step, by_nodes] : counters) {
      ASSERT_TRUE(by_nodes.contains(nodes)) << step << " has no " << nodes;
    }
    // A replay reuses what a first launch puts on the device; and no step takes a millisecond
    // per node (an empty kernel's node is instantiated in microseconds).
    EXPECT_LT(counters["replay_submit"][nodes], counters["first_launch"][nodes]) << nodes;
    for (auto& [step, by_nodes] : counters) {
      EXPECT_LT(by_nodes[nodes], 1e3) << step << " " << nodes;
    }
  }
  // A graph's fixed cost spreads over its nodes: replaying 2048 nodes costs less per node on
  // the host than replaying one.
  EXPECT_LT(counters["replay_submit"]["nodes:2048"], counters["replay_submit"]["nodes:1"]);
}

} // namespace
} // namespace gpubench::testing
