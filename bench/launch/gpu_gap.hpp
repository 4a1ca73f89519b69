#pragma once

namespace gpubench::bench {

class Registry;

// launch/gpu_gap/<path>/params:0: the GPU's own view of back-to-back launches through each path.
void register_gpu_gaps(Registry& registry);

} // namespace gpubench::bench
