#include "kernel_clock.hpp"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

TEST(KernelClock, IsCyclesPerMicrosecond) {
  // 1980 MHz: 39'600 cycles in 20 µs.
  EXPECT_DOUBLE_EQ(*kernel_clock_mhz(39'600, 20'000), 1980.0);
  EXPECT_DOUBLE_EQ(*kernel_clock_mhz(1'000, 1'000), 1000.0);
  EXPECT_NEAR(*kernel_clock_mhz(30'001, 20'032), 1497.65, 0.01);
}

TEST(KernelClock, AnEmptySpanIsNoReading) {
  EXPECT_FALSE(kernel_clock_mhz(0, 20'000).has_value());
  EXPECT_FALSE(kernel_clock_mhz(39'600, 0).has_value());
}

TEST(KernelClock, TheWindowHidesTheTimersStep) {
  // The H200's global timer steps by 32 ns; a window it could miss by a step is off by < 0.5%.
  EXPECT_LT(32.0 / static_cast<double>(sm_clock_window_ns), 0.005);
  // ... and the probe stays far below a millisecond.
  EXPECT_LE(sm_clock_window_ns, 50'000U);
}

} // namespace
} // namespace gpubench
