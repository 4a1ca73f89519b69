#pragma once

#include "family.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace gpubench::bench {

// --overlap-sizes=LIST: the bytes each stream of an overlap benchmark moves, or the saxpy's x
// and y hold; default 1 MiB and 64 MiB.
[[nodiscard]] FamilyFlag overlap_sizes_flag();

// Its value as benchmark arguments (bytes), each a whole number of floats (the saxpy's
// elements); throws UsageError naming the flag for a size it cannot read or that is not.
[[nodiscard]] std::vector<std::int64_t> overlap_size_args(std::string_view value);

} // namespace gpubench::bench
