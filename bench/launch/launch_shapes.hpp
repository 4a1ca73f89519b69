#pragma once

namespace gpubench::bench {

class Registry;

// launch/shape/<dimension>/<value>/{submit,gpu_gap}: what a launch's grid, block, dynamic shared
// memory and a change of shared-memory carveout cost the host and the GPU.
void register_launch_shapes(Registry& registry);

} // namespace gpubench::bench
