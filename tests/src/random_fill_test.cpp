#include "random_fill.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

namespace gpubench {
namespace {

TEST(FillRandom, FloatsInRangeNeverZeroAndSpread) {
  std::vector<float> values(1U << 21U);
  fill_random(values, 42);
  EXPECT_TRUE(std::all_of(values.begin(), values.end(),
                          [](float v) { return v != 0.0F && v >= -1.0F && v < 1.0F; }));
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  EXPECT_LT(*low, -0.99F);
  EXPECT_GT(*high, 0.99F);
  double sum = 0.0;
  for (float v : values) {
    sum += v;
  }
  EXPECT_LT(std::abs(sum / static_cast<double>(values.size())), 0.01);
}

TEST(FillRandom, ReproducibleAndPrefixStable) {
  std::vector<float> small(1000);
  std::vector<float> large(3U << 20U);
  fill_random(small, 7);
  fill_random(large, 7);
  EXPECT_TRUE(std::equal(small.begin(), small.end(), large.begin()));
  std::vector<float> other(1000);
  fill_random(other, 8);
  EXPECT_NE(small, other);
}

TEST(FillRandom, PiecesFromAnOffsetAreTheWholeSequences) {
  std::vector<float> whole(5U << 20U);
  fill_random(whole, 9);
  std::vector<float> pieces(whole.size());
  const std::size_t piece = (3U << 20U) + 7;
  for (std::size_t first = 0; first < pieces.size(); first += piece) {
    const std::size_t count = std::min(piece, pieces.size() - first);
    fill_random(std::span(pieces).subspan(first, count), 9, first);
  }
  EXPECT_EQ(pieces, whole);
  float one = 0.0F;
  fill_random(std::span(&one, 1), 9, 4'000'001);
  EXPECT_EQ(one, whole[4'000'001]);
}

TEST(FillRandom, BytesCoverOddLengths) {
  std::vector<std::byte> bytes(13, std::byte{0});
  fill_random(bytes, 3);
  EXPECT_NE(bytes.back(), std::byte{0});
  EXPECT_GT(
      std::count_if(bytes.begin(), bytes.end(), [](std::byte b) { return b != std::byte{0}; }), 10);
}

} // namespace
} // namespace gpubench
