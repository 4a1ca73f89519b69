#include "paired_ratio.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

namespace gpubench {
namespace {

// Batch times of two paths measured in the same rounds: each costs its own base times the
// round's host speed, with a few percent of independent noise on every batch.
struct Rounds {
  std::vector<double> a;
  std::vector<double> b;
};

Rounds synthetic_rounds(std::size_t count, double a_cost, double b_cost) {
  std::mt19937_64 random(42);
  std::normal_distribution<double> noise(1.0, 0.03);
  Rounds rounds;
  for (std::size_t i = 0; i < count; ++i) {
    rounds.a.push_back(a_cost * noise(random));
    rounds.b.push_back(b_cost * noise(random));
  }
  return rounds;
}

// Every batch of rounds [first, last) `factor` times slower: a stretch of a slow host.
void slow_host_period(Rounds& rounds, std::size_t first, std::size_t last, double factor) {
  for (std::size_t i = first; i < last; ++i) {
    rounds.a[i] *= factor;
    rounds.b[i] *= factor;
  }
}

TEST(PairedRatio, ASlowHostPeriodDoesNotChangeTheRatio) {
  Rounds rounds = synthetic_rounds(257, 3.6, 4.0);
  const RatioInterval steady = paired_ratio(rounds.a, rounds.b);
  slow_host_period(rounds, 60, 160, 1.3);
  const RatioInterval drifting = paired_ratio(rounds.a, rounds.b);
  EXPECT_NEAR(drifting.estimate, steady.estimate, 1e-12);
  EXPECT_NEAR(drifting.lo, steady.lo, 1e-12);
  EXPECT_NEAR(drifting.hi, steady.hi, 1e-12);
  EXPECT_LT(drifting.lo, 0.9);
  EXPECT_GT(drifting.hi, 0.9);
}

// The same slow period falling on one path's measurements only (what timing each path in its
// own window risks) does move the ratio: the test above would see a pairing that failed.
TEST(PairedRatio, ASlowPeriodOnOneSideMovesTheRatio) {
  Rounds rounds = synthetic_rounds(257, 3.6, 4.0);
  const RatioInterval steady = paired_ratio(rounds.a, rounds.b);
  for (std::size_t i = 0; i < 160; ++i) {
    rounds.a[i] *= 1.3;
  }
  const RatioInterval skewed = paired_ratio(rounds.a, rounds.b);
  EXPECT_GT(skewed.lo, steady.hi);
}

TEST(PairedRatio, EstimatesTheTrueRatioWithinItsInterval) {
  const Rounds rounds = synthetic_rounds(257, 3.0, 4.0);
  const RatioInterval ratio = paired_ratio(rounds.a, rounds.b);
  EXPECT_NEAR(ratio.estimate, 0.75, 0.01);
  EXPECT_LE(ratio.lo, ratio.estimate);
  EXPECT_GE(ratio.hi, ratio.estimate);
  EXPECT_LT(ratio.lo, 0.75);
  EXPECT_GT(ratio.hi, 0.75);
  // 3% noise on each side over 257 rounds: the median's interval is about ±0.5%.
  EXPECT_LT(ratio.hi - ratio.lo, 0.02);
}

TEST(PairedRatio, IsTheSameEveryTimeForTheSameRounds) {
  const Rounds rounds = synthetic_rounds(101, 3.0, 4.0);
  const RatioInterval first = paired_ratio(rounds.a, rounds.b);
  const RatioInterval second = paired_ratio(rounds.a, rounds.b);
  EXPECT_EQ(first.estimate, second.estimate);
  EXPECT_EQ(first.lo, second.lo);
  EXPECT_EQ(first.hi, second.hi);
}

TEST(PairedRatio, IdenticalTimesAreOneWithNoSpread) {
  const std::vector<double> times{2.0, 3.0, 5.0, 7.0};
  const RatioInterval ratio = paired_ratio(times, times);
  EXPECT_DOUBLE_EQ(ratio.estimate, 1.0);
  EXPECT_DOUBLE_EQ(ratio.lo, 1.0);
  EXPECT_DOUBLE_EQ(ratio.hi, 1.0);
}

TEST(PairedRatio, RefusesWhatIsNotPairedRounds) {
  const std::vector<double> two{1.0, 2.0};
  const std::vector<double> three{1.0, 2.0, 3.0};
  const std::vector<double> one{1.0};
  const std::vector<double> zero{1.0, 0.0};
  const std::vector<double> not_a_number{1.0, std::numeric_limits<double>::quiet_NaN()};
  EXPECT_THROW(static_cast<void>(paired_ratio(two, three)), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(paired_ratio(one, one)), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(paired_ratio(two, zero)), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(paired_ratio(not_a_number, two)), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(paired_ratio(two, two, {.resamples = 0})), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(paired_ratio(two, two, {.confidence = 1.0})),
               std::invalid_argument);
}

TEST(DifferenceResolved, OnlyAnIntervalClearOfOneAndOfTheSamePathBand) {
  const RatioInterval same_path{1.0, 0.98, 1.03};
  EXPECT_TRUE(difference_resolved({0.90, 0.88, 0.92}, same_path));
  EXPECT_TRUE(difference_resolved({1.10, 1.05, 1.15}, same_path));
  EXPECT_FALSE(difference_resolved({0.99, 0.97, 1.01}, same_path)); // contains 1
  EXPECT_FALSE(difference_resolved({1.03, 1.02, 1.04}, same_path)); // inside the host's band
  EXPECT_FALSE(difference_resolved({0.97, 0.96, 0.985}, same_path));
  // A band that lies wholly above 1 still counts 1 as unresolved.
  EXPECT_FALSE(difference_resolved({1.005, 1.001, 1.009}, {1.03, 1.02, 1.04}));
}

} // namespace
} // namespace gpubench
