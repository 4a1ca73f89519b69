#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpubench {

// One size: a positive integer with an optional binary suffix K, M or G (KiB, MiB, GiB), with or
// without a trailing "B" or "iB": "4", "4K", "256MiB", "1G". Throws std::invalid_argument
// naming the text when it is empty, zero, negative or not a size.
[[nodiscard]] std::size_t parse_size(std::string_view text);

// A comma-separated list of sizes and ranges. A range "LO..HI:xF" is LO, LO*F, ... up to HI
// inclusive ("1K..1G:x2"); without ":xF" the factor is 2. Duplicates are kept once, in order.
// Throws std::invalid_argument for an empty entry (a leading, trailing or doubled comma), a step
// that is not "x" and a whole number of at least 2, or a range whose start is above its end.
[[nodiscard]] std::vector<std::size_t> parse_size_list(std::string_view text);

// "4B", "64KiB", "1GiB": the shortest exact binary spelling, for messages.
[[nodiscard]] std::string format_size(std::size_t bytes);

} // namespace gpubench
