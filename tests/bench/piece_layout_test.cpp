// The batch family's layout of scattered pieces and its check of a destination region, on the
// CPU; and its flags through the binary as a user runs it: the names carry the piece count and
// size, and a count past what a batch holds is one line naming the flag.
#include "piece_layout.hpp"
#include "process.hpp"
#include "random_fill.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

using bench::make_piece_layout;
using bench::piece_region_bytes;
using bench::PieceLayout;
using bench::pieces_mismatch;

constexpr unsigned char poison = 0xA5;

TEST(PieceLayout, SlotsAreThePieceRoundedUpTo16BytesTwiceOver) {
  EXPECT_EQ(piece_region_bytes(16, 4), 2U * 16U * 16U);
  EXPECT_EQ(piece_region_bytes(256, 1024), 2U * 256U * 1024U);
  EXPECT_EQ(piece_region_bytes(3, 17), 2U * 3U * 32U);
  const PieceLayout layout = make_piece_layout(4096, 65536, 1);
  EXPECT_EQ(layout.slot_bytes, 65536U);
  EXPECT_EQ(layout.slots(), 8192U);
  EXPECT_EQ(layout.region_bytes(), std::size_t{512} << 20);
  EXPECT_EQ(layout.bytes(), std::size_t{256} << 20);
}

TEST(PieceLayout, NoLayoutWithoutPiecesOrPastTheLimitOrTheAddresses) {
  constexpr std::size_t most = std::numeric_limits<std::size_t>::max();
  EXPECT_FALSE(piece_region_bytes(0, 4));
  EXPECT_FALSE(piece_region_bytes(4, 0));
  EXPECT_FALSE(piece_region_bytes(bench::max_pieces + 1, 4));
  EXPECT_TRUE(piece_region_bytes(bench::max_pieces, 4));
  EXPECT_FALSE(piece_region_bytes(16, most / 16));
  EXPECT_FALSE(piece_region_bytes(1, most));
  EXPECT_THROW(static_cast<void>(make_piece_layout(0, 4, 1)), std::invalid_argument);
}

TEST(PieceLayout, EachSideIsADistinctRandomChoiceOfSlotsTheSameForTheSameSeed) {
  const PieceLayout layout = make_piece_layout(256, 4, 7);
  for (const auto* side : {&layout.source_slots, &layout.destination_slots}) {
    ASSERT_EQ(side->size(), 256U);
    const std::set<std::uint32_t> distinct(side->begin(), side->end());
    EXPECT_EQ(distinct.size(), 256U);
    EXPECT_LT(*distinct.rbegin(), layout.slots());
    // Scattered: most pieces are not their predecessor's neighbour.
    std::size_t neighbours = 0;
    for (std::size_t i = 1; i < side->size(); ++i) {
      neighbours += (*side)[i] == (*side)[i - 1] + 1 ? 1 : 0;
    }
    EXPECT_LT(neighbours, 16U);
  }
  EXPECT_NE(layout.source_slots, layout.destination_slots);
  const PieceLayout again = make_piece_layout(256, 4, 7);
  EXPECT_EQ(again.source_slots, layout.source_slots);
  EXPECT_EQ(again.destination_slots, layout.destination_slots);
  EXPECT_NE(make_piece_layout(256, 4, 8).source_slots, layout.source_slots);
}

// A source region of random bytes and a destination poisoned, then the pieces copied as the
// benchmark's copies do.
struct Copied {
  explicit Copied(const PieceLayout& layout)
      : source(layout.region_bytes()), destination(layout.region_bytes(), std::byte{poison}) {
    fill_random(source, 3);
    for (std::size_t piece = 0; piece < layout.pieces; ++piece) {
      std::memcpy(destination.data() + layout.destination_offset(piece),
                  source.data() + layout.source_offset(piece), layout.piece_bytes);
    }
  }
  std::vector<std::byte> source;
  std::vector<std::byte> destination;
};

TEST(PiecesMismatch, EveryPieceInItsSlotAndEveryGapPoisonedPasses) {
  for (const std::size_t piece_bytes : {1U, 4U, 17U, 1024U}) {
    const PieceLayout layout = make_piece_layout(64, piece_bytes, 5);
    const Copied copied(layout);
    EXPECT_EQ(
        pieces_mismatch(layout, copied.source.data(), copied.destination.data(), poison, "device"),
        std::nullopt)
        << piece_bytes;
  }
}

TEST(PiecesMismatch, AWrongPieceByteIsNamedWithItsPieceAndSlots) {
  const PieceLayout layout = make_piece_layout(64, 20, 5);
  Copied copied(layout);
  copied.destination[layout.destination_offset(9) + 13] ^= std::byte{0xFF};
  const auto mismatch =
      pieces_mismatch(layout, copied.source.data(), copied.destination.data(), poison, "device");
  ASSERT_TRUE(mismatch);
  EXPECT_TRUE(mismatch->starts_with("device: piece 9 of 64 (source slot " +
                                    std::to_string(layout.source_slots[9]) + ", destination slot " +
                                    std::to_string(layout.destination_slots[9]) +
                                    ") differs at its byte 13 of 20"))
      << *mismatch;
}

TEST(PiecesMismatch, AByteWrittenOutsideThePiecesIsFound) {
  const PieceLayout layout = make_piece_layout(64, 20, 5);
  std::vector<std::uint32_t> sorted = layout.destination_slots;
  std::sort(sorted.begin(), sorted.end());
  std::uint32_t unused = 0;
  while (std::binary_search(sorted.begin(), sorted.end(), unused)) {
    ++unused;
  }
  {
    Copied copied(layout);
    copied.destination[unused * layout.slot_bytes + 31] = std::byte{0};
    const auto mismatch =
        pieces_mismatch(layout, copied.source.data(), copied.destination.data(), poison, "host");
    ASSERT_TRUE(mismatch);
    EXPECT_EQ(*mismatch, "host: destination slot " + std::to_string(unused) +
                             " was written at its byte 31 of 32, a slot no piece goes to: "
                             "expected 0xa5, got 0x00");
  }
  {
    // One byte past a piece, inside its slot: a copy that ran long.
    Copied copied(layout);
    copied.destination[layout.destination_offset(3) + 20] = std::byte{0};
    const auto mismatch =
        pieces_mismatch(layout, copied.source.data(), copied.destination.data(), poison, "host");
    ASSERT_TRUE(mismatch);
    EXPECT_NE(mismatch->find("was written at its byte 20 of 32, past its piece"), std::string::npos)
        << *mismatch;
  }
  {
    // An unwritten destination: the first piece in it is found still poisoned.
    const std::vector<std::byte> poisoned(layout.region_bytes(), std::byte{poison});
    Copied copied(layout);
    EXPECT_TRUE(pieces_mismatch(layout, copied.source.data(), poisoned.data(), poison, "host"));
  }
}

Finished listed(const std::vector<std::string>& flags) {
  std::vector<std::string> argv{GPUBENCH_BINARY, "--benchmark_list_tests",
                                "--benchmark_filter=^batch/"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  return run_process(argv);
}

TEST(BatchFlags, NamesCarryThePieceCountAndThePieceSize) {
  const Finished run = listed({"--batch-pieces=16,4K", "--batch-piece-sizes=4,64K"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::vector<std::string> names = lines_of(run.out);
  // 2 directions x 3 ways x 2 counts x 2 sizes.
  EXPECT_EQ(names.size(), 24U);
  EXPECT_EQ(names.front(), "batch/HtoD/memcpy_loop/pieces:16/4/manual_time");
  EXPECT_EQ(names.back(), "batch/DtoH/gather_kernel/pieces:4096/65536/manual_time");
  EXPECT_NE(
      std::find(names.begin(), names.end(), "batch/HtoD/memcpy_batch/pieces:4096/4/manual_time"),
      names.end());
}

TEST(BatchFlags, ACountPastWhatABatchHoldsIsOneLineNamingTheFlag) {
  const Finished run = listed({"--batch-pieces=16,2M"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err, "gpubench: --batch-pieces=16,2M: 2097152 pieces is more than the 1048576 a "
                     "batch holds\n");
  const Finished zero = listed({"--batch-piece-sizes=0"});
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_TRUE(zero.err.starts_with("gpubench: --batch-piece-sizes=0: ")) << zero.err;
}

} // namespace
} // namespace gpubench::testing
