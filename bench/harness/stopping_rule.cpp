#include "stopping_rule.hpp"

#include "batch_spread.hpp"

#include <algorithm>

namespace gpubench::bench {

bool StoppingRule::should_stop(const std::vector<double>& batch_seconds, double loop_seconds) {
  const std::size_t batches = batch_seconds.size();
  if (batches < std::max(limits_.least_batches, required_batches_)) {
    return false;
  }
  if (batches >= limits_.min_batches && converged(batch_seconds)) {
    reason_ = StopReason::converged;
    return true;
  }
  if (loop_seconds >= limits_.max_loop_seconds) {
    reason_ = StopReason::capped;
    return true;
  }
  return false;
}

bool StoppingRule::converged(const std::vector<double>& batch_seconds) {
  const std::size_t batches = batch_seconds.size();
  if (batches < next_check_) {
    return false;
  }
  next_check_ = batches + std::max<std::size_t>(1, batches / 8);
  const BatchSpread spread = batch_spread(batch_seconds);
  return median_relative_error(spread.relative_spread, batches) <= limits_.target_relative_error;
}

} // namespace gpubench::bench
