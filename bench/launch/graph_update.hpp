#pragma once

#include <cstdint>
#include <vector>

namespace gpubench::bench {

class Registry;

// launch/graph_update/<how>/nodes:<n>: what giving an instantiated graph of n kernel nodes new
// parameters costs per node, in place or by instantiating it again.
void register_graph_updates(Registry& registry, const std::vector<std::int64_t>& node_counts);

} // namespace gpubench::bench
