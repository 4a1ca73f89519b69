#include "energy_counter.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <optional>

namespace gpubench {
namespace {

using Clock = std::chrono::steady_clock;

// A GPU drawing `watts` whose energy counter the driver updates every `step_ms`; the host's
// clock moves 1 ms per poll.
struct FakeCounter {
  int step_ms;
  double watts;
  int polls = 0;
  [[nodiscard]] Clock::time_point now() const {
    return Clock::time_point(std::chrono::milliseconds(polls));
  }
  std::optional<std::uint64_t> read() {
    ++polls;
    const int updated_at = polls / step_ms * step_ms;
    return static_cast<std::uint64_t>(watts * updated_at); // W x ms = mJ
  }
};

std::optional<EnergyCounterSteps> measure(FakeCounter& fake, int window_ms) {
  return measure_energy_counter([&] { return fake.read(); }, [&] { return fake.now(); },
                                std::chrono::milliseconds(window_ms));
}

TEST(EnergyCounter, StepsAndPowerFromTheUpdatesSeen) {
  FakeCounter fake{.step_ms = 20, .watts = 130.0};
  const auto steps = measure(fake, 500);
  ASSERT_TRUE(steps.has_value());
  EXPECT_NEAR(steps->step_ms, 20.0, 1.0);
  EXPECT_NEAR(steps->power_w, 130.0, 2.0);
  EXPECT_GE(steps->steps, 20);
  EXPECT_EQ(format_energy_counter(steps).rfind("a step every 20.", 0), 0U);
}

TEST(EnergyCounter, TooFewUpdatesOrNoCounterIsNotReported) {
  FakeCounter slow{.step_ms = 200, .watts = 130.0};
  EXPECT_EQ(measure(slow, 300), std::nullopt) << "fewer than three updates";
  const auto none =
      measure_energy_counter([] { return std::optional<std::uint64_t>(); },
                             [] { return Clock::now(); }, std::chrono::milliseconds(10));
  EXPECT_EQ(none, std::nullopt);
  EXPECT_EQ(format_energy_counter(none).rfind("not reported", 0), 0U);
}

TEST(EnergyCounter, ACounterThatGoesBackIsNotReported) {
  FakeCounter fake{.step_ms = 20, .watts = 130.0};
  const auto steps = measure_energy_counter(
      [&]() -> std::optional<std::uint64_t> {
        const auto mj = fake.read();
        return fake.polls < 200 ? mj : std::optional<std::uint64_t>(*mj / 2);
      },
      [&] { return fake.now(); }, std::chrono::milliseconds(500));
  EXPECT_EQ(steps, std::nullopt) << "a counter that fell by half gave a power";
}

} // namespace
} // namespace gpubench
