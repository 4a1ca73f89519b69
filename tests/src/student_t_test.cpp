#include "student_t.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gpubench {
namespace {

// Critical values from the published t table (two-sided).
TEST(StudentT, MatchesTheTable) {
  EXPECT_NEAR(student_t_critical(0.95, 1), 12.7062, 1e-4);
  EXPECT_NEAR(student_t_critical(0.95, 2), 4.3027, 1e-4);
  EXPECT_NEAR(student_t_critical(0.95, 7), 2.3646, 1e-4);
  EXPECT_NEAR(student_t_critical(0.95, 11), 2.2010, 1e-4);
  EXPECT_NEAR(student_t_critical(0.95, 30), 2.0423, 1e-4);
  EXPECT_NEAR(student_t_critical(0.99, 11), 3.1058, 1e-4);
  EXPECT_NEAR(student_t_critical(0.90, 5), 2.0150, 1e-4);
  EXPECT_NEAR(student_t_critical(0.95, 100000), 1.9600, 1e-4);
}

TEST(StudentT, RefusesWhatHasNoCriticalValue) {
  EXPECT_THROW(static_cast<void>(student_t_critical(1.0, 5)), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(student_t_critical(0.0, 5)), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(student_t_critical(0.95, 0)), std::invalid_argument);
}

} // namespace
} // namespace gpubench
