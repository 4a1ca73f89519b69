#pragma once

#include "copy_cases.hpp"

#include <cstddef>
#include <vector>

namespace gpubench::bench {

class Session;
struct CopyBuffers;

// The copies one operation of `c` makes at `bytes`, ready to time: the family's buffers grown to
// `bytes`, each source holding the expected bytes, each destination poisoned, the device
// synchronised. SkipBenchmark where they cannot run here: no room for the buffers, or a far-node
// case whose node lacks the memory or cannot be placed on.
[[nodiscard]] std::vector<CopyLeg> prepared_legs(const CopyCase& c, Session& session,
                                                 CopyBuffers& buffers, std::size_t bytes);

} // namespace gpubench::bench
