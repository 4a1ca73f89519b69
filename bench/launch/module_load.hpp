#pragma once

#include "json_context.hpp"

namespace gpubench::bench {

class Registry;

// launch/module/<step>: what it costs to get a kernel ready before its first launch.
void register_module_loading(Registry& registry);

// cuda_module_loading: lazy or eager, the process's module loading mode (CUDA_MODULE_LOADING).
[[nodiscard]] ContextEntries module_loading_context();

} // namespace gpubench::bench
