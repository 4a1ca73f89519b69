#include "clock_relation.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

namespace gpubench {
namespace {

// A global timer counting from the Unix epoch, as %globaltimer does: too large for a double's
// nanoseconds, so any arithmetic in doubles shows as a wrong offset.
constexpr std::int64_t epoch_offset_ns = 1'764'000'000'123'456'789;

EchoSample echo(std::int64_t sent, std::int64_t gpu_minus_host, std::int64_t roundtrip) {
  return {.host_sent_ns = sent,
          .gpu_ns = static_cast<std::uint64_t>(sent + gpu_minus_host),
          .host_seen_ns = sent + roundtrip};
}

TEST(ClockRelation, IsTheMiddleOfWhatTheTightestEchoAllows) {
  // Timer read 1000 ns after the host wrote, answer seen 2000 ns after: the offset lies in
  // [g - seen, g + step - sent] = [epoch - 1000, epoch + 1032].
  const std::vector<EchoSample> samples = {echo(50'000, epoch_offset_ns + 1000, 2000)};
  const ClockRelation relation = clock_relation(samples, 32.0);
  EXPECT_EQ(relation.offset_ns, epoch_offset_ns + 16);
  EXPECT_DOUBLE_EQ(relation.uncertainty_ns, 1016.0);
  EXPECT_EQ(relation.host_ns, 51'000);
  EXPECT_DOUBLE_EQ(relation.roundtrip_ns, 2000.0);
}

TEST(ClockRelation, TakesTheEchoWithTheSmallestRoundTrip) {
  const std::vector<EchoSample> samples = {
      echo(0, epoch_offset_ns + 5000, 9000),
      echo(20'000, epoch_offset_ns + 900, 1200), // the tightest
      echo(40'000, epoch_offset_ns + 100, 1500),
      echo(60'000, epoch_offset_ns + 3000, 4000),
  };
  const ClockRelation relation = clock_relation(samples, 0.0);
  EXPECT_DOUBLE_EQ(relation.roundtrip_ns, 1200.0);
  EXPECT_EQ(relation.host_ns, 20'600);
  EXPECT_EQ(relation.offset_ns, epoch_offset_ns + 900 - 600);
  EXPECT_DOUBLE_EQ(relation.uncertainty_ns, 600.0);
}

// Echoes simulated with a known offset, delays drawn at random each way and a timer that counts
// in steps: the true offset always lies within the relation's uncertainty, whichever the
// delays were (the bound needs no knowledge of them).
TEST(ClockRelation, HoldsTheTrueOffsetWithinItsUncertaintyWhateverTheDelays) {
  std::mt19937_64 random(7);
  std::uniform_int_distribution<std::int64_t> delay_ns(300, 5000);
  constexpr std::int64_t step = 32;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<EchoSample> samples;
    std::int64_t host = 1'000'000 + trial;
    for (int i = 0; i < 16; ++i) {
      const std::int64_t to_gpu = delay_ns(random);
      const std::int64_t to_host = delay_ns(random);
      const std::int64_t true_gpu = host + to_gpu + epoch_offset_ns;
      samples.push_back({.host_sent_ns = host,
                         .gpu_ns = static_cast<std::uint64_t>(true_gpu - true_gpu % step),
                         .host_seen_ns = host + to_gpu + to_host});
      host += to_gpu + to_host + delay_ns(random);
    }
    const ClockRelation relation = clock_relation(samples, static_cast<double>(step));
    EXPECT_LE(std::abs(static_cast<double>(relation.offset_ns - epoch_offset_ns)),
              relation.uncertainty_ns)
        << "trial " << trial;
  }
}

// The corners of what an echo allows: the kernel read its timer the instant the host wrote, or
// the instant the host saw the answer, with the timer's count exact or a step short of the
// true time. The true offset lies within the uncertainty at every corner.
TEST(ClockRelation, HoldsTheTrueOffsetAtEveryCornerOfAnEcho) {
  constexpr std::int64_t step = 32;
  constexpr std::int64_t roundtrip = 2000;
  for (const std::int64_t read_at : {std::int64_t{0}, roundtrip}) {
    for (const std::int64_t count_short_by : {std::int64_t{0}, step - 1}) {
      const std::vector<EchoSample> samples = {
          {.host_sent_ns = 0,
           .gpu_ns = static_cast<std::uint64_t>(epoch_offset_ns + read_at - count_short_by),
           .host_seen_ns = roundtrip}};
      const ClockRelation relation = clock_relation(samples, static_cast<double>(step));
      EXPECT_LE(std::abs(static_cast<double>(relation.offset_ns - epoch_offset_ns)),
                relation.uncertainty_ns)
          << "read at " << read_at << " ns, count short by " << count_short_by << " ns";
    }
  }
}

TEST(ClockRelation, RefusesWhatCannotBeAnEcho) {
  const std::vector<EchoSample> none;
  EXPECT_THROW(static_cast<void>(clock_relation(none, 32.0)), std::invalid_argument);
  const std::vector<EchoSample> seen_before_sent = {
      {.host_sent_ns = 10, .gpu_ns = 5, .host_seen_ns = 9}};
  EXPECT_THROW(static_cast<void>(clock_relation(seen_before_sent, 32.0)), std::invalid_argument);
  const std::vector<EchoSample> past_int64 = {
      {.host_sent_ns = 0, .gpu_ns = std::numeric_limits<std::uint64_t>::max(), .host_seen_ns = 1}};
  EXPECT_THROW(static_cast<void>(clock_relation(past_int64, 32.0)), std::invalid_argument);
  const std::vector<EchoSample> fine = {echo(0, epoch_offset_ns, 1000)};
  EXPECT_THROW(static_cast<void>(clock_relation(fine, -1.0)), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(clock_relation(fine, std::nan(""))), std::invalid_argument);
}

TEST(ClockRelation, DriftsAlongTheLineBetweenTwoMeasurements) {
  const ClockRelation before{.offset_ns = epoch_offset_ns, .uncertainty_ns = 500.0, .host_ns = 0};
  const ClockRelation after{
      .offset_ns = epoch_offset_ns + 400, .uncertainty_ns = 700.0, .host_ns = 1'000'000};
  EXPECT_EQ(clock_drift_ns(before, after), 400);
  EXPECT_EQ(offset_at(before, after, 0), epoch_offset_ns);
  EXPECT_EQ(offset_at(before, after, 250'000), epoch_offset_ns + 100);
  EXPECT_EQ(offset_at(before, after, 1'000'000), epoch_offset_ns + 400);
  EXPECT_EQ(clock_drift_ns(after, before), -400);
}

TEST(ClockRelation, OneMeasurementAtOneTimeIsItsOwnOffset) {
  const ClockRelation only{.offset_ns = epoch_offset_ns, .uncertainty_ns = 500.0, .host_ns = 7};
  EXPECT_EQ(offset_at(only, only, 1'000'000), epoch_offset_ns);
  EXPECT_EQ(clock_drift_ns(only, only), 0);
}

TEST(ClockRelation, HostClockIsSteadyNanoseconds) {
  const std::int64_t first = host_clock_ns();
  const std::int64_t second = host_clock_ns();
  EXPECT_GE(second, first);
}

} // namespace
} // namespace gpubench
