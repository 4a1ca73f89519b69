#pragma once

namespace gpubench::bench {

class Registry;

// launch/graph_nodes/<step>/nodes:<n>: what a graph of n kernel nodes costs per node, to
// instantiate, on its first launch and on replays.
void register_graph_nodes(Registry& registry);

} // namespace gpubench::bench
