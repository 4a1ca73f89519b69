#pragma once

namespace gpubench::bench {

class Registry;

// launch/persistent/roundtrip: a persistent kernel fed work through host memory, the floor
// under every launch path's roundtrip.
void register_persistent_floor(Registry& registry);

} // namespace gpubench::bench
