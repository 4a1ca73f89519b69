#include "median.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

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

} // namespace
} // namespace gpubench
