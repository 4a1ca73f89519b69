#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpubench {

// "0-3,8-11" -> {0,1,2,3,8,9,10,11}: the kernel's cpulist format. Throws std::invalid_argument.
[[nodiscard]] std::vector<int> parse_cpu_list(const std::string& text);

// Runs the calling thread on the CPUs of NUMA node `node` and prefers that node for its new
// memory, so host buffers sit next to the GPU: a copy from the far socket can be several times
// slower. Returns what was done, for the results' context ("node 1 (CPUs 16-31)", or why not).
[[nodiscard]] std::string bind_to_numa_node(int node,
                                            const std::filesystem::path& sysfs_root = "/sys");

// The nodes that hold memory (sysfs node/has_memory), ascending; empty where sysfs has no list.
// Throws std::invalid_argument for a list that cannot be read as one.
[[nodiscard]] std::vector<int> memory_nodes(const std::filesystem::path& sysfs_root = "/sys");

// The node with memory farthest from `node` in the firmware's distance table (sysfs
// node<node>/distance, one distance per online node), the lowest-numbered of equals: where a
// host copy from the wrong socket's memory is measured. nullopt for a node below 0 or where no
// other node holds memory. Throws std::invalid_argument for a table that does not match the
// online nodes.
[[nodiscard]] std::optional<int> farthest_memory_node(int node,
                                                      const std::filesystem::path& sysfs_root =
                                                          "/sys");

// farthest_memory_node for the results' context: "node 1 (distance 21 from node 0)", or why
// there is none ("none (...)"); a table it cannot read is said, not thrown.
[[nodiscard]] std::string describe_far_node(int node,
                                            const std::filesystem::path& sysfs_root = "/sys");

// The free memory of node `node` in bytes (sysfs node<node>/meminfo, MemFree); nullopt where
// sysfs does not say.
[[nodiscard]] std::optional<std::size_t> node_free_bytes(int node,
                                                        const std::filesystem::path& sysfs_root =
                                                            "/sys");

// Memory that could not be placed on the node asked for.
class NodePlacementError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Anonymous host memory whose every page sits on NUMA node `node`: mapped, bound to the node
// (mbind, MPOL_BIND), touched, and checked page by page (move_pages). Throws NodePlacementError
// naming the node where any step fails or a page lands elsewhere.
class NodeBoundMemory {
public:
  NodeBoundMemory(std::size_t bytes, int node);
  NodeBoundMemory(const NodeBoundMemory&) = delete;
  NodeBoundMemory& operator=(const NodeBoundMemory&) = delete;
  ~NodeBoundMemory();
  [[nodiscard]] std::byte* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }
  [[nodiscard]] int node() const noexcept { return node_; }

private:
  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
  int node_ = -1;
};

// How many pages of [data, data + bytes) sit on `node` (move_pages, which moves nothing when
// asked no target nodes); pages not yet touched sit on none. Throws NodePlacementError where
// the kernel will not say.
[[nodiscard]] std::size_t pages_on_node(const std::byte* data, std::size_t bytes, int node);

} // namespace gpubench
