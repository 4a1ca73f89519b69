#pragma once

namespace gpubench::bench {

class Registry;

// launch/start_latency/<path>: from the host's launch call to the kernel's first instruction,
// through each path.
void register_start_latencies(Registry& registry);

} // namespace gpubench::bench
