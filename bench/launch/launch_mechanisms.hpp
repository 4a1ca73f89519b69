#pragma once

namespace gpubench::bench {

class Registry;

// launch/gpu_gap/<mechanism>/params:32 and launch/<mechanism>/submit/params:32: programmatic
// dependent launch, thread-block clusters and cooperative launch, beside the same launches
// without them.
void register_launch_mechanisms(Registry& registry);

} // namespace gpubench::bench
