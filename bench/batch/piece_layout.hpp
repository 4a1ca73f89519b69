#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpubench::bench {

// The most pieces one batch moves: slot numbers are 32-bit on the device, and a million pieces
// is far past any batch the API's users make.
inline constexpr std::size_t max_pieces = std::size_t{1} << 20;

// Where the pieces of one batch lie, on both sides. Each side is a region of 2 x pieces slots of
// `slot_bytes` (the piece rounded up to 16 bytes, so every piece starts 16-byte aligned, as an
// allocator places objects); half the slots hold a piece, half are gaps. Piece i goes from
// source slot source_slots[i] to destination slot destination_slots[i], each side a seeded
// random choice and order of slots: the pieces are scattered, neither side one run of bytes, so
// one copy of a contiguous span is no substitute for them.
struct PieceLayout {
  std::size_t pieces = 0;
  std::size_t piece_bytes = 0;
  std::size_t slot_bytes = 0;
  std::vector<std::uint32_t> source_slots;      // one per piece
  std::vector<std::uint32_t> destination_slots; // one per piece

  [[nodiscard]] std::size_t slots() const noexcept { return 2 * pieces; }
  [[nodiscard]] std::size_t region_bytes() const noexcept { return slots() * slot_bytes; }
  [[nodiscard]] std::size_t source_offset(std::size_t piece) const {
    return source_slots.at(piece) * slot_bytes;
  }
  [[nodiscard]] std::size_t destination_offset(std::size_t piece) const {
    return destination_slots.at(piece) * slot_bytes;
  }
  // The bytes one batch moves.
  [[nodiscard]] std::size_t bytes() const noexcept { return pieces * piece_bytes; }
};

// The bytes of each side's region for `pieces` pieces of `piece_bytes`, or nullopt where the
// count is 0 or past max_pieces, the size is 0, or the region would not fit in a size_t.
[[nodiscard]] std::optional<std::size_t> piece_region_bytes(std::size_t pieces,
                                                            std::size_t piece_bytes);

// The layout of `pieces` pieces of `piece_bytes`, the same for the same seed; throws
// std::invalid_argument where piece_region_bytes has none.
[[nodiscard]] PieceLayout make_piece_layout(std::size_t pieces, std::size_t piece_bytes,
                                            std::uint64_t seed);

// Where `destination` (a region of layout.region_bytes()) is not what the pieces copied from
// `source` (its region) make of a region poisoned with `poison`, if anywhere: each piece's bytes
// in its destination slot, every other byte still the poison (the unused slots, and each slot
// past its piece).
[[nodiscard]] std::optional<std::string> pieces_mismatch(const PieceLayout& layout,
                                                         const std::byte* source,
                                                         const std::byte* destination,
                                                         unsigned char poison, const char* where);

} // namespace gpubench::bench
