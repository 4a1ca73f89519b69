#pragma once

// The launch family's own flags, read into its options (launch.cpp hands them to the cases).
#include "family.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace gpubench::bench {

// --launch-threads=LIST: the host-thread counts launch/threads/ launches from (1 to 64).
[[nodiscard]] FamilyFlag launch_threads_flag();
// --graph-update-nodes=LIST: the graph sizes launch/graph_update/ updates (1 to 65536 nodes).
[[nodiscard]] FamilyFlag graph_update_nodes_flag();
// --gpu-loop-iterations=LIST: the loop lengths launch/gpu_loop/ runs (1 to 65536 iterations).
[[nodiscard]] FamilyFlag gpu_loop_iterations_flag();

// A flag's value as its counts, in the order given; throws UsageError naming the flag for a
// value that is not a list, or a count outside the flag's range.
[[nodiscard]] std::vector<std::int64_t> launch_thread_counts(std::string_view value);
[[nodiscard]] std::vector<std::int64_t> graph_update_node_counts(std::string_view value);
[[nodiscard]] std::vector<std::int64_t> gpu_loop_iteration_counts(std::string_view value);

// What the launch family's flags choose.
struct LaunchOptions {
  std::vector<std::int64_t> threads;         // host threads launching at once
  std::vector<std::int64_t> update_nodes;    // nodes of an updated graph
  std::vector<std::int64_t> loop_iterations; // iterations of a GPU- or host-driven loop
};

[[nodiscard]] LaunchOptions launch_options(const FlagValues& flags);

} // namespace gpubench::bench
