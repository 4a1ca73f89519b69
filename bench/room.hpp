#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace gpubench::bench {

// Regions of one size a benchmark makes at once: on the device, and on the host.
struct Regions {
  std::size_t device;
  std::size_t host;
};

// Why `regions` of `bytes` each cannot be made here, if they cannot, as one line that begins with
// `what` ("4TiB copies"): on the device, in its free memory and what the family's regions held
// for `held_bytes` occupy (a smaller size: freed before larger ones are made, so their memory
// counts as free); on the host, in at most half the machine's memory, the rest left to the
// system. A size the family holds already needs nothing new. The need is written as
// count x size, never multiplied out, so a size near 2^63 bytes cannot wrap.
[[nodiscard]] std::optional<std::string> room_for(std::string_view what, std::size_t bytes,
                                                  std::size_t held_bytes, Regions regions);

} // namespace gpubench::bench
