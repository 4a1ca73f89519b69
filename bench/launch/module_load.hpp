#pragma once

namespace gpubench::bench {

class Registry;

// launch/module/<step>: what it costs to get a kernel ready before its first launch.
void register_module_loading(Registry& registry);

} // namespace gpubench::bench
