#pragma once

#include "family.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace gpubench::bench {

// --sizes=LIST: the byte sizes the families that move bytes sweep. One declaration, which copy
// and peer both list among their flags, so one --sizes sets both.
[[nodiscard]] FamilyFlag sizes_flag();

// --sizes's value as benchmark arguments (bytes); throws UsageError naming the flag.
[[nodiscard]] std::vector<std::int64_t> byte_size_args(std::string_view value);

} // namespace gpubench::bench
