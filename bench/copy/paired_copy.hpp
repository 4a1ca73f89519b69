#pragma once

#include <cstdint>
#include <vector>

namespace gpubench::bench {

class Registry;

// copy/<HtoD|DtoH>/<pageable|pinned>/sync_paired/<bytes>: a synchronous copy timed in the same
// rounds as two host references, and its cost over them: a figure the host's drift between
// processes cancels from, which the CI gate can judge as finely as a GPU-timed one.
void register_paired_copies(Registry& registry, const std::vector<std::int64_t>& sizes);

} // namespace gpubench::bench
