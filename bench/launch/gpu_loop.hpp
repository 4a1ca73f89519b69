#pragma once

#include <cstdint>
#include <vector>

namespace gpubench::bench {

class Registry;

// launch/gpu_loop/<driver>/length:<n>: what one iteration of a loop of n one-thread kernels
// costs the GPU when the GPU drives the loop itself (a WHILE node, tail launches, fire-and-forget
// launches), against the same loop driven by the host (a stream or graph launch per iteration).
void register_gpu_loops(Registry& registry, const std::vector<std::int64_t>& iteration_counts);

} // namespace gpubench::bench
