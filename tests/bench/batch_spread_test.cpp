#include "batch_spread.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>
#include <vector>

namespace gpubench::bench {
namespace {

TEST(BatchSpread, IsTheMedianAndTheScaledMedianAbsoluteDeviation) {
  // Median 10; deviations 0, 1, 1, 2, 2: their median is 1.
  const BatchSpread spread = batch_spread({10.0, 9.0, 11.0, 8.0, 12.0});
  EXPECT_DOUBLE_EQ(spread.median_seconds, 10.0);
  EXPECT_DOUBLE_EQ(spread.relative_spread, 1.4826 * 1.0 / 10.0);
}

TEST(BatchSpread, IsZeroWhenEveryBatchTookTheSameTime) {
  const BatchSpread spread = batch_spread({2e-3, 2e-3, 2e-3});
  EXPECT_DOUBLE_EQ(spread.median_seconds, 2e-3);
  EXPECT_EQ(spread.relative_spread, 0.0);
}

TEST(BatchSpread, IsNotMovedByARareSlowBatch) {
  std::vector<double> batches{1.00, 1.01, 0.99, 1.02, 0.98, 1.00, 1.01, 0.99, 1.00};
  const BatchSpread steady = batch_spread(batches);
  batches.push_back(50.0); // one batch held up by an interrupt
  const BatchSpread with_outlier = batch_spread(batches);
  EXPECT_NEAR(with_outlier.median_seconds, steady.median_seconds, 0.011);
  EXPECT_LT(with_outlier.relative_spread, 0.03);
}

TEST(BatchSpread, EstimatesTheCoefficientOfVariationOfNormalNoise) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(1.0, 0.02);
  std::vector<double> batches(20000);
  for (double& batch : batches) {
    batch = noise(rng);
  }
  EXPECT_NEAR(batch_spread(batches).relative_spread, 0.02, 0.001);
}

TEST(BatchSpread, HasTheMeanThatARareSlowBatchMoves) {
  // Four batches of 1 and one of 5: the median stays 1, the mean is 1.8.
  const BatchSpread spread = batch_spread({1.0, 1.0, 5.0, 1.0, 1.0});
  EXPECT_DOUBLE_EQ(spread.median_seconds, 1.0);
  EXPECT_DOUBLE_EQ(spread.mean_seconds, 1.8);
}

TEST(BatchSpread, RefusesNoBatches) {
  EXPECT_THROW(static_cast<void>(batch_spread({})), std::invalid_argument);
}

TEST(MedianRelativeError, ShrinksWithTheSquareRootOfTheBatches) {
  EXPECT_DOUBLE_EQ(median_relative_error(0.04, 100), std::sqrt(std::numbers::pi / 2.0) * 0.04 / 10.0);
  EXPECT_DOUBLE_EQ(median_relative_error(0.04, 400), median_relative_error(0.04, 100) / 2.0);
  EXPECT_TRUE(std::isinf(median_relative_error(0.04, 0)));
}

} // namespace
} // namespace gpubench::bench
