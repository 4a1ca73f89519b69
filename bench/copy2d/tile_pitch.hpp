#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace gpubench::bench {

// The pitches a tile's rows are laid out at: `aligned` (pitch512), the smallest multiple of 512
// bytes past the row, so every row starts 512-byte aligned with a gap of 1 to 512 bytes after
// it; `odd` (pitch_odd), one byte more, not a multiple of 512 or even of 2, so successive rows
// start at every alignment.
enum class PitchKind { aligned, odd };

inline constexpr std::size_t pitch_alignment = 512;

// pitch512 or pitch_odd, as the benchmark names say it.
[[nodiscard]] const char* pitch_name(PitchKind kind) noexcept;

// A tile of `rows` rows of `width` bytes, row r at r x `pitch`, the same on both sides of a copy:
// the same rectangle of two 2D arrays laid out alike, each region `rows` x `pitch` bytes.
struct Tile {
  std::size_t width = 0;
  std::size_t rows = 0;
  std::size_t pitch = 0;

  [[nodiscard]] std::size_t region_bytes() const noexcept { return rows * pitch; }
  // The bytes one copy moves.
  [[nodiscard]] std::size_t bytes() const noexcept { return rows * width; }
};

// The tile of `rows` rows of `width` bytes at `kind`'s pitch, or nullopt where either is 0 or its
// region would not fit in a size_t.
[[nodiscard]] std::optional<Tile> make_tile(std::size_t width, std::size_t rows, PitchKind kind);

// Where `destination` (a region of tile.region_bytes()) is not what copying the tile from
// `source` (its region) makes of a region poisoned with `poison`, if anywhere: each row's bytes
// at its place, every gap after a row still the poison.
[[nodiscard]] std::optional<std::string> tile_mismatch(const Tile& tile, const std::byte* source,
                                                       const std::byte* destination,
                                                       unsigned char poison, const char* where);

} // namespace gpubench::bench
