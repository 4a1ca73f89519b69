#include "start_latency.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

namespace gpubench {
namespace {

constexpr std::int64_t epoch_offset_ns = 1'764'000'000'123'456'789;

StampedLaunch launch_at(std::int64_t host_ns, std::int64_t offset_ns, std::int64_t latency_ns) {
  return {.host_ns = host_ns,
          .gpu_start_ns = static_cast<std::uint64_t>(host_ns + offset_ns + latency_ns)};
}

TEST(StartLatency, IsTheStampLessTheCallOnTheGpusTimer) {
  const ClockRelation relation{.offset_ns = epoch_offset_ns, .uncertainty_ns = 800.0, .host_ns = 0};
  const std::vector<StampedLaunch> launches = {launch_at(10'000, epoch_offset_ns, 4000),
                                               launch_at(90'000, epoch_offset_ns, 6500)};
  const StartLatencies latencies = start_latencies(launches, relation, relation, 32.0);
  ASSERT_EQ(latencies.ns.size(), 2U);
  // A stamp is the timer's count: the launch started within the step after it, taken as its
  // middle.
  EXPECT_DOUBLE_EQ(latencies.ns[0], 4016.0);
  EXPECT_DOUBLE_EQ(latencies.ns[1], 6516.0);
  EXPECT_DOUBLE_EQ(latencies.uncertainty_ns, 816.0);
}

TEST(StartLatency, FollowsTheOffsetAsItDriftsBetweenTheRelations) {
  const ClockRelation before{.offset_ns = epoch_offset_ns, .uncertainty_ns = 600.0, .host_ns = 0};
  const ClockRelation after{
      .offset_ns = epoch_offset_ns + 1000, .uncertainty_ns = 900.0, .host_ns = 1'000'000};
  // Halfway, the offset has moved by 500 ns: a launch 3000 ns long on the drifted timer.
  const std::vector<StampedLaunch> launches = {launch_at(500'000, epoch_offset_ns + 500, 3000)};
  const StartLatencies latencies = start_latencies(launches, before, after, 0.0);
  EXPECT_DOUBLE_EQ(latencies.ns.at(0), 3000.0);
  // The larger of the two relations' uncertainties.
  EXPECT_DOUBLE_EQ(latencies.uncertainty_ns, 900.0);
}

TEST(StartLatency, AStartBeforeItsCallBeyondTheUncertaintyIsAnError) {
  const ClockRelation relation{.offset_ns = epoch_offset_ns, .uncertainty_ns = 500.0, .host_ns = 0};
  const std::vector<StampedLaunch> launches = {launch_at(1000, epoch_offset_ns, 2000),
                                               launch_at(9000, epoch_offset_ns, -1200)};
  const auto mismatch = find_impossible_start(start_latencies(launches, relation, relation, 0.0));
  ASSERT_TRUE(mismatch.has_value());
  EXPECT_NE(mismatch->find("launch 1 started 1200 ns before its launch call"), std::string::npos)
      << *mismatch;
  EXPECT_NE(mismatch->find("clock relation"), std::string::npos) << *mismatch;
}

TEST(StartLatency, AStartBeforeItsCallWithinTheUncertaintyIsNoError) {
  const ClockRelation relation{.offset_ns = epoch_offset_ns, .uncertainty_ns = 500.0, .host_ns = 0};
  const std::vector<StampedLaunch> launches = {launch_at(1000, epoch_offset_ns, -500),
                                               launch_at(2000, epoch_offset_ns, 0)};
  const StartLatencies latencies = start_latencies(launches, relation, relation, 0.0);
  EXPECT_DOUBLE_EQ(latencies.ns[0], -500.0);
  EXPECT_FALSE(find_impossible_start(latencies).has_value());
}

TEST(StartLatency, RefusesAStampPastInt64AndANegativeStep) {
  const ClockRelation relation{.offset_ns = 0, .uncertainty_ns = 500.0, .host_ns = 0};
  const std::vector<StampedLaunch> past = {
      {.host_ns = 0, .gpu_start_ns = std::numeric_limits<std::uint64_t>::max()}};
  EXPECT_THROW(static_cast<void>(start_latencies(past, relation, relation, 0.0)),
               std::invalid_argument);
  const std::vector<StampedLaunch> fine = {launch_at(0, 0, 100)};
  EXPECT_THROW(static_cast<void>(start_latencies(fine, relation, relation, -32.0)),
               std::invalid_argument);
}

} // namespace
} // namespace gpubench
