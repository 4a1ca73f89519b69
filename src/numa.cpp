#include "numa.hpp"

#include "host_bytes.hpp"
#include "sysfs_text.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
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
  const std::string list = read_first_line(nodes / fmt::format("node{}", node) / "cpulist");
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

namespace {

std::size_t page_size() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }

// The kernel's mempolicy and move_pages interfaces (linux/mempolicy.h), called directly: no
// libnuma is needed for one bind and one query.
constexpr int mpol_bind = 2;
constexpr unsigned mpol_mf_strict = 1U << 0;
constexpr unsigned mpol_mf_move = 1U << 1;
// Nodes a one-word mask can name.
constexpr int mask_nodes = 64;

} // namespace

std::vector<int> memory_nodes(const std::filesystem::path& sysfs_root) {
  const auto list = sysfs_root / "devices/system/node/has_memory";
  if (!std::filesystem::exists(list)) {
    return {};
  }
  return parse_cpu_list(read_first_line(list));
}

namespace {

struct FarNode {
  int node;
  int distance;
};

// The node with memory farthest from `node` and its distance (farthest_memory_node).
std::optional<FarNode> farthest_from(int node, const std::filesystem::path& sysfs_root) {
  if (node < 0) {
    return std::nullopt;
  }
  const std::vector<int> with_memory = memory_nodes(sysfs_root);
  if (std::none_of(with_memory.begin(), with_memory.end(), [&](int n) { return n != node; })) {
    return std::nullopt;
  }
  const auto nodes = sysfs_root / "devices/system/node";
  const std::vector<int> online = parse_cpu_list(read_first_line(nodes / "online"));
  const std::string table = read_first_line(nodes / fmt::format("node{}", node) / "distance");
  std::vector<int> distances;
  std::istringstream in(table);
  for (int d = 0; in >> d;) {
    distances.push_back(d);
  }
  if (!in.eof() || distances.size() != online.size()) {
    throw std::invalid_argument(fmt::format(
        "node {}'s distance table '{}' does not give one distance for each of the {} online "
        "nodes",
        node, table, online.size()));
  }
  std::optional<FarNode> farthest;
  for (std::size_t i = 0; i < online.size(); ++i) {
    const int candidate = online[i];
    const bool holds_memory =
        std::find(with_memory.begin(), with_memory.end(), candidate) != with_memory.end();
    if (candidate != node && holds_memory && (!farthest || distances[i] > farthest->distance)) {
      farthest = FarNode{candidate, distances[i]};
    }
  }
  return farthest;
}

} // namespace

std::optional<int> farthest_memory_node(int node, const std::filesystem::path& sysfs_root) {
  const std::optional<FarNode> far = farthest_from(node, sysfs_root);
  return far ? std::optional<int>(far->node) : std::nullopt;
}

std::string describe_far_node(int node, const std::filesystem::path& sysfs_root) {
  if (node < 0) {
    return "none (the driver reports no NUMA node for the GPU)";
  }
  try {
    const std::optional<FarNode> far = farthest_from(node, sysfs_root);
    if (!far) {
      return fmt::format("none (no NUMA node but node {} holds memory)", node);
    }
    return fmt::format("node {} (distance {} from node {})", far->node, far->distance, node);
  } catch (const std::invalid_argument& error) {
    return fmt::format("unknown ({})", error.what());
  }
}

std::optional<std::size_t> node_free_bytes(int node, const std::filesystem::path& sysfs_root) {
  std::ifstream in(sysfs_root / fmt::format("devices/system/node/node{}/meminfo", node));
  // "Node 1 MemFree:        1234567 kB"
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string word;
    int number = -1;
    std::string key;
    std::size_t kib = 0;
    std::string unit;
    if (words >> word >> number >> key >> kib >> unit && key == "MemFree:" && unit == "kB") {
      return kib * 1024;
    }
  }
  return std::nullopt;
}

NodeBoundMemory::NodeBoundMemory(std::size_t bytes, int node) : node_(node) {
  if (node < 0 || node >= mask_nodes) {
    throw NodePlacementError(fmt::format("cannot bind memory to NUMA node {}", node));
  }
  const std::size_t page = page_size();
  const std::size_t size = (std::max<std::size_t>(bytes, 1) + page - 1) / page * page;
  void* mapped = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) {
    throw NodePlacementError(fmt::format("mapping {} bytes for NUMA node {} failed: {}", size,
                                         node, std::strerror(errno)));
  }
  // Unmapped again if any step below throws; the object owns it once every step passed.
  const auto unmap = [size](std::byte* p) { munmap(p, size); };
  std::unique_ptr<std::byte, decltype(unmap)> mapping(static_cast<std::byte*>(mapped), unmap);
  const unsigned long mask = 1UL << static_cast<unsigned>(node);
  // maxnode counts one bit more than the mask holds: the kernel reads maxnode - 1 bits.
  if (syscall(SYS_mbind, mapping.get(), size, mpol_bind, &mask, mask_nodes + 1,
              mpol_mf_strict | mpol_mf_move) != 0) {
    throw NodePlacementError(
        fmt::format("binding memory to NUMA node {} failed: {}", node, std::strerror(errno)));
  }
  parallel_fill(mapping.get(), 0, size);
  const std::size_t pages = size / page;
  const std::size_t placed = pages_on_node(mapping.get(), size, node);
  if (placed != pages) {
    throw NodePlacementError(fmt::format(
        "{} of {} pages bound to NUMA node {} sit on another node", pages - placed, pages, node));
  }
  data_ = mapping.release();
  bytes_ = size;
}

NodeBoundMemory::~NodeBoundMemory() { munmap(data_, bytes_); }

std::size_t pages_on_node(const std::byte* data, std::size_t bytes, int node) {
  const std::size_t page = page_size();
  constexpr std::size_t chunk = 4096;
  std::vector<void*> pages;
  std::vector<int> status;
  std::size_t on_node = 0;
  for (std::size_t first = 0; first * page < bytes; first += chunk) {
    pages.clear();
    for (std::size_t i = first; i < first + chunk && i * page < bytes; ++i) {
      pages.push_back(const_cast<std::byte*>(data) + i * page);
    }
    status.assign(pages.size(), -1);
    if (syscall(SYS_move_pages, 0, pages.size(), pages.data(), nullptr, status.data(), 0) != 0) {
      throw NodePlacementError(
          fmt::format("asking where host pages sit failed: {}", std::strerror(errno)));
    }
    on_node += static_cast<std::size_t>(std::count(status.begin(), status.end(), node));
  }
  return on_node;
}

} // namespace gpubench
