#include "numa.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

namespace gpubench {
namespace {

TEST(ParseCpuList, RangesAndSingles) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list("5"), std::vector<int>{5});
  EXPECT_TRUE(parse_cpu_list("").empty());
}

TEST(ParseCpuList, RejectsGarbage) {
  EXPECT_THROW(static_cast<void>(parse_cpu_list("a-b")), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(parse_cpu_list("7-3")), std::invalid_argument);
}

TEST(BindToNumaNode, SaysWhyItDidNotBind) {
  EXPECT_EQ(bind_to_numa_node(-1), "not bound: the driver reports no NUMA node for the GPU");
  EXPECT_EQ(bind_to_numa_node(0, "/nonexistent"), "node 0 (the only one)");
}

// A sysfs tree of NUMA nodes: the online list, the nodes with memory, and each node's distances.
class FakeNodes {
public:
  FakeNodes(const std::string& online, const std::string& has_memory,
            const std::map<int, std::string>& distances)
      : root_(std::filesystem::temp_directory_path() /
              ("gpubench_numa_" + std::to_string(getpid()) + "_" + std::to_string(++count_))) {
    const auto nodes = root_ / "devices/system/node";
    std::filesystem::create_directories(nodes);
    write(nodes / "online", online);
    write(nodes / "has_memory", has_memory);
    for (const auto& [node, table] : distances) {
      std::filesystem::create_directories(nodes / ("node" + std::to_string(node)));
      write(nodes / ("node" + std::to_string(node)) / "distance", table);
    }
  }
  FakeNodes(const FakeNodes&) = delete;
  FakeNodes& operator=(const FakeNodes&) = delete;
  ~FakeNodes() { std::filesystem::remove_all(root_); }
  [[nodiscard]] const std::filesystem::path& root() const { return root_; }

private:
  static void write(const std::filesystem::path& file, const std::string& text) {
    std::ofstream(file) << text << "\n";
  }
  static inline int count_ = 0;
  std::filesystem::path root_;
};

TEST(FarthestMemoryNode, IsTheOtherSocketOfTwo) {
  const FakeNodes two("0-1", "0-1", {{0, "10 21"}, {1, "21 10"}});
  EXPECT_EQ(farthest_memory_node(0, two.root()), 1);
  EXPECT_EQ(farthest_memory_node(1, two.root()), 0);
}

TEST(FarthestMemoryNode, IsTheLargestDistanceAmongNodesWithMemory) {
  // Node 3 is farthest from 0 but holds no memory (a CPU-only or GPU node): node 2 is chosen.
  const FakeNodes four("0-3", "0-2", {{0, "10 12 32 40"}});
  EXPECT_EQ(farthest_memory_node(0, four.root()), 2);
  // Equal distances: the lowest-numbered node.
  const FakeNodes even("0-3", "0-3", {{1, "20 10 20 20"}});
  EXPECT_EQ(farthest_memory_node(1, even.root()), 0);
  // Online nodes need not be numbered from 0 without gaps.
  const FakeNodes sparse("0,2", "0,2", {{2, "21 10"}});
  EXPECT_EQ(farthest_memory_node(2, sparse.root()), 0);
}

TEST(FarthestMemoryNode, IsNoneOnAHostOfOneNodeOrForAGpuOfNoNode) {
  const FakeNodes one("0", "0", {{0, "10"}});
  EXPECT_EQ(farthest_memory_node(0, one.root()), std::nullopt);
  const FakeNodes two("0-1", "0-1", {{0, "10 21"}});
  EXPECT_EQ(farthest_memory_node(-1, two.root()), std::nullopt);
  EXPECT_EQ(farthest_memory_node(0, "/nonexistent"), std::nullopt);
  EXPECT_TRUE(memory_nodes("/nonexistent").empty());
}

TEST(FarthestMemoryNode, RefusesADistanceTableThatDoesNotMatchTheNodes) {
  const FakeNodes short_table("0-2", "0-2", {{0, "10 21"}});
  EXPECT_THROW(static_cast<void>(farthest_memory_node(0, short_table.root())),
               std::invalid_argument);
  const FakeNodes garbage("0-1", "0-1", {{0, "10 far"}});
  EXPECT_THROW(static_cast<void>(farthest_memory_node(0, garbage.root())), std::invalid_argument);
  const FakeNodes missing("0-1", "0-1", {});
  EXPECT_THROW(static_cast<void>(farthest_memory_node(0, missing.root())), std::invalid_argument);
}

TEST(DescribeFarNode, SaysTheNodeAndItsDistanceOrWhyNone) {
  const FakeNodes two("0-1", "0-1", {{0, "10 21"}});
  EXPECT_EQ(describe_far_node(0, two.root()), "node 1 (distance 21 from node 0)");
  const FakeNodes one("0", "0", {{0, "10"}});
  EXPECT_EQ(describe_far_node(0, one.root()), "none (no NUMA node but node 0 holds memory)");
  EXPECT_EQ(describe_far_node(-1, two.root()),
            "none (the driver reports no NUMA node for the GPU)");
  const FakeNodes broken("0-1", "0-1", {{0, "10"}});
  EXPECT_TRUE(describe_far_node(0, broken.root()).starts_with("unknown (node 0's distance table"));
}

TEST(NodeFreeBytes, ReadsMemFreeOfTheNode) {
  const FakeNodes two("0-1", "0-1", {{1, "21 10"}});
  std::ofstream(two.root() / "devices/system/node/node1/meminfo")
      << "Node 1 MemTotal:       2048 kB\nNode 1 MemFree:        1024 kB\n";
  EXPECT_EQ(node_free_bytes(1, two.root()), 1024U * 1024U);
  EXPECT_EQ(node_free_bytes(0, two.root()), std::nullopt);
}

// On this host's own first node with memory: every page of the buffer is placed there.
TEST(NodeBoundMemory, PutsEveryPageOnItsNode) {
  const std::vector<int> nodes = memory_nodes();
  const int node = nodes.empty() ? 0 : nodes.front();
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::optional<NodeBoundMemory> bound;
  try {
    bound.emplace(5 * page + 1, node);
  } catch (const NodePlacementError& error) {
    // A container's seccomp profile can deny mbind and move_pages (Docker's does without
    // CAP_SYS_NICE): that is the host refusing, not the code failing.
    const std::string what = error.what();
    if (what.find("Operation not permitted") != std::string::npos ||
        what.find("Function not implemented") != std::string::npos) {
      GTEST_SKIP() << what;
    }
    throw;
  }
  const NodeBoundMemory& memory = *bound;
  EXPECT_EQ(memory.bytes(), 6 * page);
  EXPECT_EQ(memory.node(), node);
  EXPECT_EQ(pages_on_node(memory.data(), memory.bytes(), node), 6U);
  EXPECT_EQ(pages_on_node(memory.data(), memory.bytes(), node + 1), 0U);
}

TEST(NodeBoundMemory, NamesTheNodeItCannotBindTo) {
  try {
    const NodeBoundMemory memory(4096, 63); // no host here has 64 nodes
    FAIL() << "bound memory to node 63";
  } catch (const NodePlacementError& error) {
    EXPECT_NE(std::string(error.what()).find("NUMA node 63"), std::string::npos) << error.what();
  }
  EXPECT_THROW(NodeBoundMemory(4096, -1), NodePlacementError);
}

} // namespace
} // namespace gpubench
