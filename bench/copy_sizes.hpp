#pragma once

#include "family.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpubench::bench {

// The sizes the families that move bytes (copy, peer) sweep: --sizes, or 4 B to 1 GiB in powers of 4.
[[nodiscard]] const std::vector<std::size_t>& copy_sizes();
[[nodiscard]] std::vector<std::size_t> default_copy_sizes();
// --sizes=LIST, shared by every family that copies bytes.
[[nodiscard]] FamilyFlag copy_sizes_flag();
// copy_sizes() as benchmark arguments.
[[nodiscard]] std::vector<std::int64_t> copy_size_args();

} // namespace gpubench::bench
