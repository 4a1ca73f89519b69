// EnergyPoller: a window's poll reads what the poller's thread last read, at once, however long
// the counter's own read takes.
#include "energy_poller.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace gpubench::bench {
namespace {

using Clock = std::chrono::steady_clock;

TEST(EnergyPoller, APollIsALoadWhileEachReadTakesMilliseconds) {
  std::atomic<std::uint64_t> counter{1000};
  const auto slow_read = [&counter]() -> std::optional<std::uint64_t> {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return counter.fetch_add(7) + 7;
  };
  const EnergyPoller poller({slow_read});
  const std::optional<std::uint64_t> first = poller.latest(0);
  ASSERT_TRUE(first.has_value());
  EXPECT_GE(*first, 1007U);

  // A thousand polls in far less than one read's time.
  const Clock::time_point begin = Clock::now();
  for (int i = 0; i < 1000; ++i) {
    static_cast<void>(poller.latest(0));
  }
  EXPECT_LT(Clock::now() - begin, std::chrono::milliseconds(2));

  // The thread keeps reading: a later poll sees a later value.
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(2);
  while (poller.latest(0) == first && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_GT(poller.latest(0).value_or(0), *first);
}

TEST(EnergyPoller, AFailedReadIsNoValueAndEachDeviceHasItsOwn) {
  std::atomic<bool> readable{true};
  const EnergyPoller poller({[&readable]() -> std::optional<std::uint64_t> {
                               if (readable) {
                                 return 42;
                               }
                               return std::nullopt;
                             },
                             []() -> std::optional<std::uint64_t> { return 9; }});
  EXPECT_EQ(poller.latest(0), 42U);
  EXPECT_EQ(poller.latest(1), 9U);
  readable = false;
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(2);
  while (poller.latest(0).has_value() && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_FALSE(poller.latest(0).has_value());
  EXPECT_EQ(poller.latest(1), 9U);
}

} // namespace
} // namespace gpubench::bench
