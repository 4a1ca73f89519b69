#include "median.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace gpubench {
namespace {

TEST(Median, IsTheMiddleValueWhateverTheOrder) {
  EXPECT_DOUBLE_EQ(median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(median({5.0, 100.0, 4.0, 6.0, 5.5}), 5.5);
  EXPECT_DOUBLE_EQ(median({7.0}), 7.0);
}

TEST(Median, TakesTheUpperMiddleOfAnEvenCount) {
  EXPECT_DOUBLE_EQ(median({4.0, 1.0, 3.0, 2.0}), 3.0);
}

TEST(Median, RefusesNoValues) {
  EXPECT_THROW(static_cast<void>(median({})), std::invalid_argument);
}

TEST(Quantile, IsTheValueAtTheNearestRank) {
  std::vector<double> values;
  for (int i = 100; i >= 1; --i) {
    values.push_back(static_cast<double>(i));
  }
  EXPECT_DOUBLE_EQ(quantile(values, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile(values, 1.0), 100.0);
  // Rank 0.99 * 99 = 98.01, nearest 98: the 99th value.
  EXPECT_DOUBLE_EQ(quantile(values, 0.99), 99.0);
  EXPECT_DOUBLE_EQ(quantile({5.0}, 0.99), 5.0);
}

TEST(Quantile, RefusesNoValuesAndAFractionOutsideZeroToOne) {
  EXPECT_THROW(static_cast<void>(quantile({}, 0.5)), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(quantile({1.0}, 1.5)), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(quantile({1.0}, -0.1)), std::invalid_argument);
}

} // namespace
} // namespace gpubench
