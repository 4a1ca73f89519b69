#include "tile_pitch.hpp"

#include "host_bytes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>

namespace gpubench::bench {

const char* pitch_name(PitchKind kind) noexcept {
  return kind == PitchKind::aligned ? "pitch512" : "pitch_odd";
}

std::optional<Tile> make_tile(std::size_t width, std::size_t rows, PitchKind kind) {
  constexpr std::size_t most = std::numeric_limits<std::size_t>::max();
  if (width == 0 || rows == 0 || width > most - 2 * pitch_alignment) {
    return std::nullopt;
  }
  std::size_t pitch = (width / pitch_alignment + 1) * pitch_alignment;
  if (kind == PitchKind::odd) {
    pitch += 1;
  }
  if (pitch > most / rows) {
    return std::nullopt;
  }
  return Tile{.width = width, .rows = rows, .pitch = pitch};
}

std::optional<std::string> tile_mismatch(const Tile& tile, const std::byte* source,
                                         const std::byte* destination, unsigned char poison,
                                         const char* where) {
  for (std::size_t row = 0; row < tile.rows; ++row) {
    const std::byte* at = destination + row * tile.pitch;
    const std::byte* expected = source + row * tile.pitch;
    if (std::memcmp(at, expected, tile.width) != 0) {
      const auto byte =
          static_cast<std::size_t>(std::mismatch(at, at + tile.width, expected).first - at);
      return fmt::format("{}: row {} of {} differs at its byte {} of {}: expected {:#04x}, got "
                         "{:#04x}",
                         where, row, tile.rows, byte, tile.width,
                         static_cast<unsigned>(expected[byte]), static_cast<unsigned>(at[byte]));
    }
    const std::size_t gap = tile.pitch - tile.width;
    if (const auto byte = first_byte_not(at + tile.width, gap, poison)) {
      return fmt::format("{}: the gap after row {} of {} was written at its byte {} of {}: "
                         "expected {:#04x}, got {:#04x}",
                         where, row, tile.rows, *byte, gap, static_cast<unsigned>(poison),
                         static_cast<unsigned>(at[tile.width + *byte]));
    }
  }
  return std::nullopt;
}

} // namespace gpubench::bench
