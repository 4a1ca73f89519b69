#pragma once

#include "family.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace gpubench::bench {

// --sizes=LIST: the byte sizes the families that move bytes sweep. One declaration, which copy
// and peer both list among their flags, so one --sizes sets both.
[[nodiscard]] FamilyFlag sizes_flag();

// A byte-size list flag's value as benchmark arguments (bytes); throws UsageError naming `flag`.
[[nodiscard]] std::vector<std::int64_t> byte_size_args(std::string_view value,
                                                       std::string_view flag = "--sizes");

} // namespace gpubench::bench
