#include "energy_window.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

namespace gpubench::bench {
namespace {

// A GPU drawing `watts` while operations run, whose energy counter the driver updates every
// `step_s` of the host's clock (which this fake owns). A batch of operations lasts `batch_s`,
// polled `polls_per_batch` times as it runs.
struct FakeGpu {
  double step_s = 0.1;
  double watts = 300.0;
  double batch_s = 0.007;
  int polls_per_batch = 20;
  double t = 0.0;
  std::optional<double> back_at = {}; // from then on the counter reads 5 J less
  std::optional<double> frozen_at = {};
  std::optional<double> unreadable_at = {};

  [[nodiscard]] std::optional<std::uint64_t> read_mj() const {
    if (unreadable_at && t >= *unreadable_at) {
      return std::nullopt;
    }
    const double seen_t = frozen_at ? std::min(t, *frozen_at) : t;
    const double updated_at = std::floor(seen_t / step_s) * step_s;
    double mj = 1e6 + watts * updated_at * 1e3; // W x s = J
    if (back_at && t >= *back_at) {
      mj -= 5000.0;
    }
    return static_cast<std::uint64_t>(std::llround(mj));
  }
  void run_batch(const std::function<void()>& poll) {
    for (int i = 0; i < polls_per_batch; ++i) {
      t += batch_s / polls_per_batch;
      poll();
    }
  }
};

std::vector<EnergyWindow> measure(FakeGpu& gpu, std::size_t ops_per_batch) {
  return measure_energy_windows(
      {{"GPU0", [&] { return gpu.read_mj(); }, gpu.step_s}}, [&] { return gpu.t; }, ops_per_batch,
      [&](const std::function<void()>& poll) { gpu.run_batch(poll); });
}

TEST(EnergyWindow, RunsFromUpdateToUpdateForTheLeastStepsAndTime) {
  FakeGpu gpu;
  const std::vector<EnergyWindow> windows = measure(gpu, 4);
  ASSERT_EQ(windows.size(), 1U);
  const EnergyWindow& w = windows.front();
  EXPECT_GE(w.steps, 10);
  EXPECT_GE(w.seconds, 1.0);
  // Both ends are updates: the window is a whole number of steps, to a poll's resolution.
  const double poll_s = gpu.batch_s / gpu.polls_per_batch;
  EXPECT_NEAR(w.seconds, w.steps * gpu.step_s, 2 * poll_s);
  EXPECT_NEAR(w.joules, w.steps * gpu.step_s * gpu.watts, 1e-6);
  EXPECT_NEAR(w.watts(), gpu.watts, gpu.watts * 0.01);
  // Four operations every 7 ms: the operations between the updates, counted to a fraction.
  const double joules_per_op = gpu.watts * gpu.batch_s / 4;
  EXPECT_NEAR(w.joules / w.ops, joules_per_op, joules_per_op * 0.005);
  // It stops at the first update that closes the window, not later.
  EXPECT_LT(w.seconds, 1.0 + gpu.step_s + 2 * poll_s);
}

TEST(EnergyWindow, TheLeastTimeFollowsTheMeasuredStep) {
  FakeGpu gpu{.step_s = 0.25};
  const EnergyWindow w = measure(gpu, 4).front();
  EXPECT_GE(w.steps, 10);
  EXPECT_GE(w.seconds, 2.5 - 1e-9) << "ten steps of 250 ms, not one second";
  EXPECT_LT(w.seconds, 2.75 + 1e-3);
}

TEST(EnergyWindow, OperationsLongerThanAStepAreCountedInFractions) {
  // One operation a batch, each 0.3 s: three steps' updates land inside every batch.
  FakeGpu gpu{.batch_s = 0.3, .polls_per_batch = 600};
  const EnergyWindow w = measure(gpu, 1).front();
  EXPECT_NEAR(w.ops, w.seconds / 0.3, 0.01);
  EXPECT_NEAR(w.joules / w.ops, gpu.watts * 0.3, gpu.watts * 0.3 * 0.01);
}

TEST(EnergyWindow, EachDeviceHasItsOwnWindow) {
  FakeGpu a{.step_s = 0.1, .watts = 300.0};
  FakeGpu b{.step_s = 0.02, .watts = 100.0};
  double t = 0.0;
  const auto windows = measure_energy_windows(
      {{"GPU0",
        [&] {
          a.t = t;
          return a.read_mj();
        },
        a.step_s},
       {"GPU1",
        [&] {
          b.t = t;
          return b.read_mj();
        },
        b.step_s}},
      [&] { return t; }, 2,
      [&](const std::function<void()>& poll) {
        for (int i = 0; i < 10; ++i) {
          t += 0.0005;
          poll();
        }
      });
  ASSERT_EQ(windows.size(), 2U);
  EXPECT_NEAR(windows[0].watts(), 300.0, 3.0);
  EXPECT_NEAR(windows[1].watts(), 100.0, 1.0);
  EXPECT_GE(windows[1].steps, 50) << "a 20 ms step still needs a second";
  EXPECT_NEAR(windows[0].seconds, windows[0].steps * 0.1, 1e-3);
  EXPECT_NEAR(windows[1].seconds, windows[1].steps * 0.02, 1e-3);
}

TEST(EnergyWindow, ACounterThatGoesBackIsAnError) {
  FakeGpu gpu{.back_at = 0.55};
  try {
    static_cast<void>(measure(gpu, 4));
    FAIL() << "a counter that went back gave a window";
  } catch (const EnergyWindowError& error) {
    EXPECT_NE(std::string(error.what()).find("GPU0 went back"), std::string::npos) << error.what();
  }
}

TEST(EnergyWindow, ACounterThatStopsIsAnError) {
  FakeGpu gpu{.frozen_at = 0.4};
  try {
    static_cast<void>(measure(gpu, 4));
    FAIL() << "a counter that stopped gave a window";
  } catch (const EnergyWindowError& error) {
    EXPECT_NE(std::string(error.what()).find("did not update"), std::string::npos) << error.what();
  }
  EXPECT_LT(gpu.t, 0.4 + 1.2) << "it gives up after ten steps without an update";
}

TEST(EnergyWindow, ACounterThatCannotBeReadIsAnError) {
  FakeGpu gpu{.unreadable_at = 0.3};
  EXPECT_THROW(static_cast<void>(measure(gpu, 4)), EnergyWindowError);
  FakeGpu never{.unreadable_at = 0.0};
  EXPECT_THROW(static_cast<void>(measure(never, 4)), EnergyWindowError);
}

TEST(EnergyPerOp, EachDevicesEnergyOverItsOwnOperationsAddedUp) {
  // A peer copy: GPU0 ran 100 copies in its window of 1.0 s at 300 W (idle 100 W), GPU1 102.5
  // in its 1.025 s at 200 W (idle 80 W).
  const EnergyPerOp e =
      energy_per_op({{.joules = 300.0, .seconds = 1.0, .ops = 100.0, .steps = 10},
                     {.joules = 205.0, .seconds = 1.025, .ops = 102.5, .steps = 41}},
                    {100.0, 80.0}, {0.1, 0.025});
  EXPECT_DOUBLE_EQ(e.joules, 3.0 + 2.0);
  EXPECT_DOUBLE_EQ(e.joules_above_idle, (300.0 - 100.0) / 100.0 + (205.0 - 82.0) / 102.5);
  EXPECT_DOUBLE_EQ(e.watts, 300.0 + 200.0);
  EXPECT_DOUBLE_EQ(e.idle_watts, 180.0);
  EXPECT_DOUBLE_EQ(e.window_seconds, 1.0);
  EXPECT_DOUBLE_EQ(e.window_ops, 100.0);
  EXPECT_EQ(e.steps, 10);
  EXPECT_DOUBLE_EQ(e.step_seconds, 0.1);
  EXPECT_THROW(static_cast<void>(
                   energy_per_op({{.joules = 1.0, .seconds = 1.0, .ops = 0.0}}, {10.0}, {0.1})),
               EnergyWindowError);
}

TEST(EnergyBatching, BatchesOfAboutTenMillisecondsPolledEveryMillisecond) {
  // 4 µs launches timed 512 a batch: 2500 a batch, a poll every 250.
  const EnergyBatching launches = energy_batching(512, 4e-6);
  EXPECT_EQ(launches.calls, 2500U);
  EXPECT_EQ(launches.calls_per_poll, 250U);
  // A 20 ms copy timed one a batch stays one, polled after each.
  const EnergyBatching copies = energy_batching(1, 0.02);
  EXPECT_EQ(copies.calls, 1U);
  EXPECT_EQ(copies.calls_per_poll, 1U);
  // The timed loop's batch where it is longer; never none.
  EXPECT_EQ(energy_batching(64, 1e-3).calls, 64U);
  EXPECT_EQ(energy_batching(0, 0.0).calls, 1U);
  EXPECT_EQ(energy_batching(0, 0.0).calls_per_poll, 1U);
}

TEST(EnergyWindowTracker, TheFirstUpdateOpensTheWindow) {
  EnergyWindowTracker tracker("GPU0", 1000, 0.1, 0.0);
  tracker.update(0.05, 1010, 3.0); // opens: what came before it is not in the window
  for (int i = 1; i <= 9; ++i) {
    tracker.update(0.05 + 0.1 * i, 1010 + 30 * static_cast<std::uint64_t>(i), 3.0 + 10.0 * i);
    EXPECT_FALSE(tracker.done()) << i << " steps";
  }
  tracker.update(1.05, 1310, 103.0);
  ASSERT_TRUE(tracker.done());
  const EnergyWindow w = tracker.window();
  EXPECT_EQ(w.steps, 10);
  EXPECT_NEAR(w.seconds, 1.0, 1e-12);
  EXPECT_NEAR(w.joules, 0.3, 1e-12);
  EXPECT_NEAR(w.ops, 100.0, 1e-12);
  EXPECT_THROW(tracker.update(1.15, 1300, 113.0), EnergyWindowError) << "went back";
}

} // namespace
} // namespace gpubench::bench
