#pragma once

#include <filesystem>
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

} // namespace gpubench
