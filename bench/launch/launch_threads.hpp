#pragma once

#include <cstdint>
#include <vector>

namespace gpubench::bench {

class Registry;

// launch/threads/<path>/<streams>/host_threads:<n>: launches per second from n host threads at
// once, each into its own stream or all into one.
void register_launch_threads(Registry& registry, const std::vector<std::int64_t>& thread_counts);

} // namespace gpubench::bench
