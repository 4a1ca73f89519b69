#include "numa.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace gpubench {

std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  std::stringstream ranges(text);
  std::string range;
  while (std::getline(ranges, range, ',')) {
    if (range.empty() || range == "\n") {
      continue;
    }
    try {
      const auto dash = range.find('-');
      const int first = std::stoi(range.substr(0, dash));
      const int last = dash == std::string::npos ? first : std::stoi(range.substr(dash + 1));
      if (first < 0 || last < first) {
        throw std::invalid_argument("reversed range");
      }
      for (int cpu = first; cpu <= last; ++cpu) {
        cpus.push_back(cpu);
      }
    } catch (const std::logic_error&) {
      throw std::invalid_argument(fmt::format("bad CPU list '{}'", text));
    }
  }
  return cpus;
}

std::string bind_to_numa_node(int node, const std::filesystem::path& sysfs_root) {
  if (node < 0) {
    return "not bound: the driver reports no NUMA node for the GPU";
  }
  const auto nodes = sysfs_root / "devices/system/node";
  std::size_t node_count = 0;
  if (std::filesystem::exists(nodes)) {
    for (const auto& entry : std::filesystem::directory_iterator(nodes)) {
      node_count += entry.path().filename().string().starts_with("node") ? 1 : 0;
    }
  }
  if (node_count < 2) {
    return fmt::format("node {} (the only one)", node);
  }
  std::ifstream in(nodes / fmt::format("node{}", node) / "cpulist");
  std::string list;
  std::getline(in, list);
  const std::vector<int> cpus = parse_cpu_list(list);
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) {
    CPU_SET(cpu, &set);
  }
  if (cpus.empty() || sched_setaffinity(0, sizeof(set), &set) != 0) {
    return fmt::format("not bound: could not run on node {}'s CPUs ({})", node, list);
  }
  // MPOL_PREFERRED (1): new pages come from `node` while it has free memory.
  constexpr int mpol_preferred = 1;
  const unsigned long mask = 1UL << static_cast<unsigned>(node);
  const bool memory_bound =
      node < 64 && syscall(SYS_set_mempolicy, mpol_preferred, &mask, sizeof(mask) * 8) == 0;
  return fmt::format("node {} (CPUs {}{})", node, list,
                     memory_bound ? ", memory preferred" : ", memory policy unchanged");
}

} // namespace gpubench
