#include "stopping_rule.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <vector>

namespace gpubench::bench {
namespace {

struct Stopped {
  std::size_t batches;
  StopReason reason;
};

// Feeds the rule batches from `next_batch` (seconds), each also taking that long on the wall
// clock plus `overhead_seconds`, until it stops.
template <typename NextBatch>
Stopped run_until_stopped(StoppingRule rule, NextBatch&& next_batch,
                          double overhead_seconds = 0.0) {
  std::vector<double> batches;
  double wall = 0.0;
  do {
    batches.push_back(next_batch());
    wall += batches.back() + overhead_seconds;
    if (batches.size() > 10'000'000) {
      ADD_FAILURE() << "the rule never stopped";
      break;
    }
  } while (!rule.should_stop(batches, wall));
  return {batches.size(), rule.reason()};
}

// Normal noise of relative spread `cv` around `seconds`.
auto noisy(double seconds, double cv, unsigned seed = 1) {
  return [rng = std::mt19937_64(seed), noise = std::normal_distribution<double>(seconds,
                                                                                seconds * cv)]()
      mutable { return noise(rng); };
}

TEST(StoppingRule, StopsAtTheMinimumBatchesWhenTheFigureIsAlreadyKnown) {
  const Stopped stopped = run_until_stopped(StoppingRule({}, 0), noisy(1e-4, 0.001));
  EXPECT_EQ(stopped.reason, StopReason::converged);
  EXPECT_EQ(stopped.batches, StoppingLimits{}.min_batches);
}

TEST(StoppingRule, StopsWhenTheMedianIsKnownToTheTarget) {
  // 2% spread: the median's relative error, 1.2533 * 0.02 / sqrt(n), reaches 0.5% at n = 25.
  const StoppingLimits limits{.max_loop_seconds = 1e9};
  const Stopped stopped = run_until_stopped(StoppingRule(limits, 0), noisy(1e-4, 0.02));
  EXPECT_EQ(stopped.reason, StopReason::converged);
  EXPECT_GE(stopped.batches, 18U);
  EXPECT_LE(stopped.batches, 45U);
}

TEST(StoppingRule, ANoisySequenceStopsAtTheTimeCap) {
  // 30% spread would need some 5600 batches; the cap (0.05 s of wall time) comes first.
  const Stopped stopped = run_until_stopped(StoppingRule({}, 0), noisy(1e-4, 0.3), 1e-4);
  EXPECT_EQ(stopped.reason, StopReason::capped);
  EXPECT_NEAR(static_cast<double>(stopped.batches), 0.05 / 2e-4, 30.0);
}

TEST(StoppingRule, TimesAtLeastTheLeastBatchesWhenTheCapComesFirst) {
  // Batches of 1 s each pass the cap at once: three are still timed, a spread needs them.
  const Stopped stopped = run_until_stopped(StoppingRule({}, 0), [] { return 1.0; });
  EXPECT_EQ(stopped.reason, StopReason::capped);
  EXPECT_EQ(stopped.batches, StoppingLimits{}.least_batches);
}

TEST(StoppingRule, NeverStopsOnTheNoiseBeforeTheMinimumBatches) {
  // Identical batches are known exactly from the first; the minimum still holds.
  const StoppingLimits limits{.min_batches = 25, .max_loop_seconds = 1e9};
  const Stopped stopped = run_until_stopped(StoppingRule(limits, 0), [] { return 1e-3; });
  EXPECT_EQ(stopped.reason, StopReason::converged);
  EXPECT_EQ(stopped.batches, 25U);
}

TEST(StoppingRule, TimesWhatGoogleBenchmarkAskedForPastTheCap) {
  // --benchmark_min_time asked for 500 batches: they are timed though the cap passed long ago.
  const Stopped stopped = run_until_stopped(StoppingRule({}, 500), noisy(1e-3, 0.3));
  EXPECT_EQ(stopped.batches, 500U);
  EXPECT_EQ(stopped.reason, StopReason::capped);
}

TEST(StoppingRule, GoesOnPastWhatGoogleBenchmarkAskedForUntilTheFigureIsKnown) {
  const StoppingLimits limits{.max_loop_seconds = 1e9};
  const Stopped stopped = run_until_stopped(StoppingRule(limits, 12), noisy(1e-4, 0.05));
  EXPECT_EQ(stopped.reason, StopReason::converged);
  EXPECT_GT(stopped.batches, 100U); // 5% spread: about 160 batches for 0.5%
}

TEST(StoppingRule, ARareSlowBatchDoesNotKeepItRunning) {
  std::size_t i = 0;
  const StoppingLimits limits{.max_loop_seconds = 1e9};
  const Stopped stopped = run_until_stopped(StoppingRule(limits, 0), [&i] {
    return ++i % 7 == 0 ? 5e-3 : 1e-4; // every seventh batch interrupted
  });
  EXPECT_EQ(stopped.reason, StopReason::converged);
  EXPECT_EQ(stopped.batches, StoppingLimits{}.min_batches);
}

} // namespace
} // namespace gpubench::bench
