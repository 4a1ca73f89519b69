// The copy2d family's pitches and its check of a destination tile, on the CPU; and its flags
// through the binary: the names carry the pitch, the row count and the row size.
#include "host_bytes.hpp"
#include "process.hpp"
#include "random_fill.hpp"
#include "tile_pitch.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

using bench::make_tile;
using bench::PitchKind;
using bench::Tile;
using bench::tile_mismatch;

constexpr unsigned char poison = 0xA5;

TEST(TilePitch, AlignedIsTheNextMultipleOf512PastTheRowAndOddOneMore) {
  const std::vector<std::pair<std::size_t, std::size_t>> aligned{
      {4, 512}, {256, 512}, {511, 512}, {512, 1024}, {4096, 4608}, {65536, 66048}};
  for (const auto& [width, pitch] : aligned) {
    const auto tile = make_tile(width, 8, PitchKind::aligned);
    ASSERT_TRUE(tile) << width;
    EXPECT_EQ(tile->pitch, pitch) << width;
    EXPECT_EQ(tile->pitch % 512, 0U) << width;
    const auto odd = make_tile(width, 8, PitchKind::odd);
    ASSERT_TRUE(odd) << width;
    EXPECT_EQ(odd->pitch, pitch + 1) << width;
    EXPECT_NE(odd->pitch % 2, 0U) << width;
    EXPECT_GT(odd->pitch, width) << width;
  }
  const Tile tile = *make_tile(4096, 1024, PitchKind::odd);
  EXPECT_EQ(tile.bytes(), std::size_t{4} << 20);
  EXPECT_EQ(tile.region_bytes(), 1024U * 4609U);
  EXPECT_STREQ(bench::pitch_name(PitchKind::aligned), "pitch512");
  EXPECT_STREQ(bench::pitch_name(PitchKind::odd), "pitch_odd");
}

TEST(TilePitch, NoTileWithoutRowsOrPastTheAddresses) {
  constexpr std::size_t most = std::numeric_limits<std::size_t>::max();
  EXPECT_FALSE(make_tile(0, 8, PitchKind::aligned));
  EXPECT_FALSE(make_tile(4, 0, PitchKind::aligned));
  EXPECT_FALSE(make_tile(most, 1, PitchKind::odd));
  EXPECT_FALSE(make_tile(std::size_t{1} << 40, std::size_t{1} << 30, PitchKind::aligned));
}

struct CopiedTile {
  explicit CopiedTile(const Tile& tile)
      : source(tile.region_bytes()), destination(tile.region_bytes(), std::byte{poison}) {
    fill_random(source, 11);
    for (std::size_t row = 0; row < tile.rows; ++row) {
      std::memcpy(destination.data() + row * tile.pitch, source.data() + row * tile.pitch,
                  tile.width);
    }
  }
  std::vector<std::byte> source;
  std::vector<std::byte> destination;
};

TEST(TileMismatch, EveryRowInPlaceAndEveryGapPoisonedPasses) {
  for (const PitchKind kind : {PitchKind::aligned, PitchKind::odd}) {
    const Tile tile = *make_tile(700, 33, kind);
    const CopiedTile copied(tile);
    EXPECT_EQ(tile_mismatch(tile, copied.source.data(), copied.destination.data(), poison, "host"),
              std::nullopt);
  }
}

TEST(TileMismatch, AWrongRowByteAndAWrittenGapAreFound) {
  const Tile tile = *make_tile(700, 33, PitchKind::odd);
  {
    CopiedTile copied(tile);
    copied.destination[5 * tile.pitch + 699] ^= std::byte{0x0F};
    const auto mismatch =
        tile_mismatch(tile, copied.source.data(), copied.destination.data(), poison, "device");
    ASSERT_TRUE(mismatch);
    EXPECT_TRUE(mismatch->starts_with("device: row 5 of 33 differs at its byte 699 of 700"))
        << *mismatch;
  }
  {
    // The byte after the last row: a copy that ran one byte long.
    CopiedTile copied(tile);
    copied.destination[32 * tile.pitch + 700] = std::byte{0};
    const auto mismatch =
        tile_mismatch(tile, copied.source.data(), copied.destination.data(), poison, "device");
    ASSERT_TRUE(mismatch);
    EXPECT_EQ(*mismatch, "device: the gap after row 32 of 33 was written at its byte 0 of 325: "
                         "expected 0xa5, got 0x00");
  }
}

TEST(FirstByteNot, FindsTheFirstByteOtherThanTheValueAcrossBlocks) {
  std::vector<std::byte> bytes((std::size_t{1} << 17) + 3, std::byte{poison});
  EXPECT_EQ(first_byte_not(bytes.data(), bytes.size(), poison), std::nullopt);
  EXPECT_EQ(first_byte_not(bytes.data(), 0, poison), std::nullopt);
  bytes[(std::size_t{1} << 16) + 5] = std::byte{1};
  bytes.back() = std::byte{2};
  EXPECT_EQ(first_byte_not(bytes.data(), bytes.size(), poison), (std::size_t{1} << 16) + 5);
  EXPECT_EQ(first_byte_not(bytes.data(), bytes.size(), 0x01), 0U);
}

TEST(Copy2dFlags, NamesCarryThePitchRowsAndRowSize) {
  const Finished run =
      run_process({GPUBENCH_BINARY, "--benchmark_list_tests", "--benchmark_filter=^copy2d/",
                   "--copy2d-rows=16,1K", "--copy2d-row-sizes=4,64K"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::vector<std::string> names = lines_of(run.out);
  // 2 directions x 2 APIs x 2 pitches x 2 row counts x 2 row sizes.
  EXPECT_EQ(names.size(), 32U);
  EXPECT_EQ(names.front(), "copy2d/HtoD/runtime/pitch512/rows:16/4/manual_time");
  EXPECT_EQ(names.back(), "copy2d/DtoH/driver/pitch_odd/rows:1024/65536/manual_time");
}

} // namespace
} // namespace gpubench::testing
