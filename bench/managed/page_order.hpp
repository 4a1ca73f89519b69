#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace gpubench::bench {

// The order in which a touch visits a managed buffer's granules: `sequential`, first to last,
// or `random`, a fixed shuffle of them, so no prefetching of the next pages by the driver's
// heuristics can follow the walk.
enum class PageOrder { sequential, random };

// sequential or random, as the benchmark names say it.
[[nodiscard]] const char* page_order_name(PageOrder order) noexcept;

// The granules a buffer of `bytes` splits into at `granule_bytes` each (the last one may be
// shorter), or nullopt where either is 0 or the count would not fit the 32-bit granule numbers
// the kernel reads.
[[nodiscard]] std::optional<std::size_t> granule_count(std::size_t bytes,
                                                       std::size_t granule_bytes) noexcept;

// Every granule number of [0, count) once, in `order`: the identity, or a Fisher-Yates shuffle
// drawn from `seed` (random_word, so the same seed gives the same walk on every platform).
[[nodiscard]] std::vector<std::uint32_t> page_walk(std::size_t count, PageOrder order,
                                                   std::uint64_t seed);

} // namespace gpubench::bench
