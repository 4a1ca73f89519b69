// launch/graph_update/<how>/nodes:<n>: what giving an instantiated graph new parameters costs
// per node. Each run verifies that a replay of the updated graph ran every node with the value
// it was last given; this checks every case runs so, with figures that agree.
#include "gpu_test.hpp"

#include <map>
#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

TEST(GraphUpdate, EveryNodeRunsWithItsNewParameters) {
  GPUBENCH_REQUIRE_GPU();
  const std::vector<BenchmarkOutcome> outcomes = run_benchmarks("^launch/graph_update/");
  // exec_set_params, exec_update and reinstantiate at 1, 16, 256 and 1024 nodes.
  expect_all_verified(outcomes, 3 * 4, "us_per_node");
  std::map<std::string, std::map<double, double>> per_node; // by how, then node count
  for (const BenchmarkOutcome& outcome : outcomes) {
    if (outcome.failed) {
      continue;
    }
    const auto& c = outcome.counters;
    ASSERT_TRUE(c.contains("us_per_graph") && c.contains("nodes")) << outcome.name;
    EXPECT_NEAR(c.at("us_per_graph"), c.at("us_per_node") * c.at("nodes"),
                1e-9 * c.at("us_per_graph"))
        << outcome.name;
    // The Time column is one whole graph's update, whichever call gives the values.
    EXPECT_NEAR(outcome.seconds_per_iteration * 1e6, c.at("us_per_graph"),
                1e-6 * c.at("us_per_graph"))
        << outcome.name;
    // No way of updating an empty kernel's node takes a millisecond per node.
    EXPECT_LT(c.at("us_per_node"), 1000.0) << outcome.name;
    const std::string rest = outcome.name.substr(std::string("launch/graph_update/").size());
    per_node[rest.substr(0, rest.find('/'))][c.at("nodes")] = c.at("us_per_node");
  }
  ASSERT_EQ(per_node.size(), 3U);
  for (const auto& [how, by_nodes] : per_node) {
    EXPECT_EQ(by_nodes.size(), 4U) << how;
  }
}

} // namespace
} // namespace gpubench::testing
