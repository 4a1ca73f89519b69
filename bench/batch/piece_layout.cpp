#include "piece_layout.hpp"

#include "host_bytes.hpp"
#include "random_fill.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace gpubench::bench {
namespace {

constexpr std::size_t slot_alignment = 16;

// `count` of the `slots` slot numbers, in a seeded random order (a Fisher-Yates shuffle of all
// of them, cut short).
std::vector<std::uint32_t> random_slots(std::size_t slots, std::size_t count, std::uint64_t seed) {
  std::vector<std::uint32_t> all(slots);
  std::iota(all.begin(), all.end(), std::uint32_t{0});
  for (std::size_t i = slots - 1; i > 0; --i) {
    std::swap(all[i], all[random_word(seed, i) % (i + 1)]);
  }
  all.resize(count);
  return all;
}

std::string byte_pair(std::byte expected, std::byte got) {
  return fmt::format("expected {:#04x}, got {:#04x}", static_cast<unsigned>(expected),
                     static_cast<unsigned>(got));
}

} // namespace

std::optional<std::size_t> piece_region_bytes(std::size_t pieces, std::size_t piece_bytes) {
  constexpr std::size_t most = std::numeric_limits<std::size_t>::max();
  if (pieces == 0 || pieces > max_pieces || piece_bytes == 0 ||
      piece_bytes > most - (slot_alignment - 1)) {
    return std::nullopt;
  }
  const std::size_t slot_bytes =
      (piece_bytes + slot_alignment - 1) / slot_alignment * slot_alignment;
  if (slot_bytes > most / (2 * pieces)) {
    return std::nullopt;
  }
  return 2 * pieces * slot_bytes;
}

PieceLayout make_piece_layout(std::size_t pieces, std::size_t piece_bytes, std::uint64_t seed) {
  const auto region = piece_region_bytes(pieces, piece_bytes);
  if (!region) {
    throw std::invalid_argument(
        fmt::format("no layout of {} pieces of {} bytes: at least 1 piece of 1 byte, at most {} "
                    "pieces, and a region that fits in memory's addresses",
                    pieces, piece_bytes, max_pieces));
  }
  PieceLayout layout;
  layout.pieces = pieces;
  layout.piece_bytes = piece_bytes;
  layout.slot_bytes = *region / (2 * pieces);
  layout.source_slots = random_slots(layout.slots(), pieces, seed);
  layout.destination_slots = random_slots(layout.slots(), pieces, ~seed);
  return layout;
}

std::optional<std::string> pieces_mismatch(const PieceLayout& layout, const std::byte* source,
                                           const std::byte* destination, unsigned char poison,
                                           const char* where) {
  constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> piece_in_slot(layout.slots(), none);
  for (std::size_t piece = 0; piece < layout.pieces; ++piece) {
    piece_in_slot.at(layout.destination_slots[piece]) = piece;
  }
  for (std::size_t slot = 0; slot < layout.slots(); ++slot) {
    const std::byte* at = destination + slot * layout.slot_bytes;
    const std::size_t piece = piece_in_slot[slot];
    std::size_t filled = 0;
    if (piece != none) {
      const std::byte* expected = source + layout.source_offset(piece);
      if (std::memcmp(at, expected, layout.piece_bytes) != 0) {
        const auto byte = static_cast<std::size_t>(
            std::mismatch(at, at + layout.piece_bytes, expected).first - at);
        return fmt::format("{}: piece {} of {} (source slot {}, destination slot {}) differs at "
                           "its byte {} of {}: {}",
                           where, piece, layout.pieces, layout.source_slots[piece], slot, byte,
                           layout.piece_bytes, byte_pair(expected[byte], at[byte]));
      }
      filled = layout.piece_bytes;
    }
    if (const auto byte = first_byte_not(at + filled, layout.slot_bytes - filled, poison)) {
      const std::size_t in_slot = filled + *byte;
      return fmt::format("{}: destination slot {} was written at its byte {} of {}, {}: {}", where,
                         slot, in_slot, layout.slot_bytes,
                         piece == none ? "a slot no piece goes to" : "past its piece",
                         byte_pair(static_cast<std::byte>(poison), at[in_slot]));
    }
  }
  return std::nullopt;
}

} // namespace gpubench::bench
