#include "launch_flags.hpp"

#include "byte_sizes.hpp"
#include "options.hpp"

#include <fmt/format.h>

#include <string>

namespace gpubench::bench {
namespace {

constexpr std::string_view threads_name = "--launch-threads";
constexpr std::string_view nodes_name = "--graph-update-nodes";
constexpr std::string_view iterations_name = "--gpu-loop-iterations";

// 64 threads: four times the cores of the machines the suite is measured on, past where more
// threads can only queue for cores. 65536 nodes: an update of that many takes tens of
// milliseconds, the most a benchmark's batch should. 65536 iterations: a loop of that many takes
// a few hundred milliseconds where the host drives it, and its stamps take 1 MiB.
constexpr std::int64_t max_threads = 64;
constexpr std::int64_t max_nodes = 65536;
constexpr std::int64_t max_iterations = 65536;

std::vector<std::int64_t> counts(std::string_view value, std::string_view flag, std::int64_t most,
                                 std::string_view what) {
  std::vector<std::int64_t> counts = byte_size_args(value, flag);
  for (const std::int64_t count : counts) {
    if (count < 1 || count > most) {
      throw UsageError(
          fmt::format("{}={}: {} {} is outside 1 to {}", flag, value, count, what, most));
    }
  }
  return counts;
}

} // namespace

FamilyFlag launch_threads_flag() {
  return {std::string(threads_name), "1,2,4,8,16",
          "host threads launching at once (launch/threads/): a list or ranges, e.g. 1,2,4,8,16 "
          "or 1..16:x2",
          [](std::string_view value) { static_cast<void>(launch_thread_counts(value)); }};
}

FamilyFlag graph_update_nodes_flag() {
  return {std::string(nodes_name), "1,16,256,1024",
          "nodes of an updated graph (launch/graph_update/): a list or ranges, e.g. "
          "1,16,256,1024 or 1..1024:x4",
          [](std::string_view value) { static_cast<void>(graph_update_node_counts(value)); }};
}

FamilyFlag gpu_loop_iterations_flag() {
  return {std::string(iterations_name), "16,1024",
          "iterations of a loop the GPU or the host drives (launch/gpu_loop/): a list or ranges, "
          "e.g. 16,1024 or 1..4096:x4",
          [](std::string_view value) { static_cast<void>(gpu_loop_iteration_counts(value)); }};
}

std::vector<std::int64_t> launch_thread_counts(std::string_view value) {
  return counts(value, threads_name, max_threads, "threads");
}

std::vector<std::int64_t> graph_update_node_counts(std::string_view value) {
  return counts(value, nodes_name, max_nodes, "nodes");
}

std::vector<std::int64_t> gpu_loop_iteration_counts(std::string_view value) {
  return counts(value, iterations_name, max_iterations, "iterations");
}

LaunchOptions launch_options(const FlagValues& flags) {
  return {.threads = launch_thread_counts(flags.of(launch_threads_flag())),
          .update_nodes = graph_update_node_counts(flags.of(graph_update_nodes_flag())),
          .loop_iterations = gpu_loop_iteration_counts(flags.of(gpu_loop_iterations_flag()))};
}

} // namespace gpubench::bench
