#include "saxpy_reference.hpp"

#include "random_fill.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace gpubench {
namespace {

TEST(SaxpyReference, IsOneFusedMultiplyAdd) {
  std::vector<float> x{1.0F, 3.0F, 1e-8F};
  std::vector<float> y{1.0F, -6.0F, 1.0F};
  saxpy_reference(2.0F, x, y);
  EXPECT_EQ(y[0], 3.0F);
  EXPECT_EQ(y[1], 0.0F);
  EXPECT_EQ(y[2], std::fmaf(2.0F, 1e-8F, 1.0F));
}

TEST(FindSaxpyMismatch, AcceptsTheReferenceAndFindsTheFirstDifference) {
  const std::size_t n = 3U << 20U;
  std::vector<float> x(n);
  std::vector<float> y0(n);
  fill_random(x, 1);
  fill_random(y0, 2);
  std::vector<float> y = y0;
  saxpy_reference(1.5F, x, y);
  EXPECT_FALSE(find_saxpy_mismatch(1.5F, x, y0, y).has_value());

  y[2U << 20U] = std::nextafter(y[2U << 20U], 10.0F); // one ulp off, late in the array
  y[n - 1] = 0.0F;
  const auto mismatch = find_saxpy_mismatch(1.5F, x, y0, y);
  ASSERT_TRUE(mismatch.has_value());
  EXPECT_EQ(mismatch->index, 2U << 20U);
  EXPECT_NE(describe(*mismatch, n).find("element 2097152 of 3145728"), std::string::npos);
}

TEST(FindSaxpyMismatch, CountsRepeatedApplications) {
  std::vector<float> x(1000);
  std::vector<float> y0(1000);
  fill_random(x, 3);
  fill_random(y0, 4);
  std::vector<float> y = y0;
  for (int k = 0; k < 3; ++k) {
    saxpy_reference(0.75F, x, y);
  }
  EXPECT_FALSE(find_saxpy_mismatch(0.75F, x, y0, y, 3).has_value());
  EXPECT_TRUE(find_saxpy_mismatch(0.75F, x, y0, y, 2).has_value());
  EXPECT_TRUE(find_saxpy_mismatch(0.75F, x, y0, y).has_value());
}

TEST(FindSaxpyMismatch, NanNeverPasses) {
  std::vector<float> x{1.0F};
  std::vector<float> y0{1.0F};
  std::vector<float> y{std::nanf("")};
  EXPECT_TRUE(find_saxpy_mismatch(1.0F, x, y0, y).has_value());
}

} // namespace
} // namespace gpubench
