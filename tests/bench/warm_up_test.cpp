#include "warm_up.hpp"

#include <gtest/gtest.h>

#include <cstddef>

namespace gpubench::bench {
namespace {

// Untimed batches the rule asks for after a first call of `call` seconds, each batch `batch`
// seconds long.
std::size_t batches_run(const WarmUp& warm_up, double call, double batch) {
  std::size_t batches = 0;
  double elapsed = call;
  while (!warm_up.done(call, batches, elapsed)) {
    ++batches;
    elapsed += batch;
    if (batches > 1'000'000) {
      ADD_FAILURE() << "the warm-up never ended";
      break;
    }
  }
  return batches;
}

TEST(WarmUp, RunsShortBatchesUntilItHasLastedItsTime) {
  // A batch of 64 launch submits at 3.5 µs: 0.224 ms; 10 ms of warm-up take 45 batches.
  EXPECT_EQ(batches_run(WarmUp{}, 4e-6, 224e-6), 45U);
}

TEST(WarmUp, CountsTheFirstCallInItsTime) {
  // A 6 ms call leaves 4 ms: two batches of 3 ms.
  EXPECT_EQ(batches_run(WarmUp{}, 6e-3, 3e-3), 2U);
}

TEST(WarmUp, RunsAtLeastOneBatchAfterAShortCall) {
  // A 9 ms call and batches of 50 ms: one batch, as long as it is.
  EXPECT_EQ(batches_run(WarmUp{}, 9e-3, 50e-3), 1U);
}

TEST(WarmUp, ACallOfTheLimitOrLongerIsTheWholeWarmUp) {
  EXPECT_EQ(batches_run(WarmUp{}, 10e-3, 1e-3), 0U);
  EXPECT_EQ(batches_run(WarmUp{}, 0.2, 1e-3), 0U);
}

TEST(WarmUp, FollowsItsLimits) {
  const WarmUp longer(WarmUpLimits{.least_seconds = 0.05, .call_alone_seconds = 0.01});
  EXPECT_EQ(batches_run(longer, 0.5e-3, 1e-3), 50U);
}

} // namespace
} // namespace gpubench::bench
