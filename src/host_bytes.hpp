#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace gpubench {

// Multi-GiB host buffers are filled and compared on every thread: single-threaded, setup and
// verification would take longer than the measurement.
void parallel_copy(std::byte* dst, const std::byte* src, std::size_t bytes);
void parallel_fill(std::byte* dst, unsigned char value, std::size_t bytes);

// Where `data` differs from `expected` ("<where> destination differs at byte ..."), if it does.
[[nodiscard]] std::optional<std::string> compare_bytes(const std::byte* data,
                                                       const std::byte* expected,
                                                       std::size_t bytes, const char* where);

// The first of `bytes` at `data` that is not `value`, if one is: a gap a copy must leave as it
// was poisoned.
[[nodiscard]] std::optional<std::size_t> first_byte_not(const std::byte* data, std::size_t bytes,
                                                        unsigned char value);

} // namespace gpubench
