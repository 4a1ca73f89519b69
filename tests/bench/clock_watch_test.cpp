#include "clock_watch.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace gpubench::bench {
namespace {

TEST(LoopClocks, OneSteadyDeviceIsReportedAsItIs) {
  const std::vector<DeviceClocks> devices{{1980, 1975, 0, 1977.5}};
  const LoopClocks loop = loop_clocks(devices);
  EXPECT_EQ(loop.start_mhz, 1980);
  EXPECT_EQ(loop.end_mhz, 1975);
  EXPECT_EQ(loop.kernel_mhz, 1977.5);
  EXPECT_EQ(loop.limited_ns, 0U);
  EXPECT_FALSE(loop.throttled);
}

TEST(LoopClocks, ASecondDeviceWhoseClockFellThrottlesTheLoop) {
  // The first device steady, the second down from 1980 to 1500 MHz (24%).
  const std::vector<DeviceClocks> devices{{1980, 1980, 0, 1980.0}, {1980, 1500, 0, 1510.0}};
  const LoopClocks loop = loop_clocks(devices);
  EXPECT_TRUE(loop.throttled);
  EXPECT_EQ(loop.start_mhz, 1980);
  EXPECT_EQ(loop.end_mhz, 1500);
  EXPECT_EQ(loop.kernel_mhz, 1510.0);
}

TEST(LoopClocks, ALimitOnAnyDeviceThrottlesTheLoopAndTheLongestIsReported) {
  const std::vector<DeviceClocks> devices{{1980, 1980, 0, std::nullopt},
                                          {1980, 1950, 3'000'000, std::nullopt},
                                          {1980, 1960, 1'000'000, std::nullopt}};
  const LoopClocks loop = loop_clocks(devices);
  EXPECT_TRUE(loop.throttled);
  EXPECT_EQ(loop.limited_ns, 3'000'000U);
  EXPECT_EQ(loop.end_mhz, 1950);
  EXPECT_EQ(loop.kernel_mhz, std::nullopt);
}

TEST(LoopClocks, ADropOfTenPercentOrLessIsNotThrottling) {
  const std::vector<DeviceClocks> devices{{2000, 1800, std::nullopt, std::nullopt}};
  const LoopClocks loop = loop_clocks(devices);
  EXPECT_FALSE(loop.throttled);
  EXPECT_EQ(loop.limited_ns, std::nullopt) << "no violation times read: no clock_limited_ms";
}

TEST(LoopClocks, ADeviceWithoutNvmlLeavesTheOthersToSpeak) {
  const std::vector<DeviceClocks> devices{{std::nullopt, std::nullopt, std::nullopt, 1400.0},
                                          {1980, 1700, 0, 1700.0}};
  const LoopClocks loop = loop_clocks(devices);
  EXPECT_TRUE(loop.throttled);
  EXPECT_EQ(loop.start_mhz, 1980);
  EXPECT_EQ(loop.end_mhz, 1700);
  EXPECT_EQ(loop.kernel_mhz, 1400.0);
}

TEST(LoopClocks, NoDevicesSayNothing) {
  const LoopClocks loop = loop_clocks({});
  EXPECT_FALSE(loop.throttled);
  EXPECT_EQ(loop.start_mhz, std::nullopt);
  EXPECT_EQ(loop.kernel_mhz, std::nullopt);
}

} // namespace
} // namespace gpubench::bench
