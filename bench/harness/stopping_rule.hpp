#pragma once

#include <cstddef>
#include <vector>

namespace gpubench::bench {

// When a benchmark's timed loop has measured enough, as nvbench decides it: batches are timed
// until the figure (the median batch) is known to `target_relative_error`, judged from the
// spread of the batches so far (batch_spread, median_relative_error), and no less than
// `min_batches`; a loop that has not got there after `max_loop_seconds` of wall time stops at
// the cap, with at least `least_batches`. Google Benchmark can ask for more: `required_batches`
// (what covers the iterations it asked for, from its --benchmark_min_time) are always timed.
struct StoppingLimits {
  std::size_t min_batches = 10;
  std::size_t least_batches = 3; // a median and a spread around it need three
  double target_relative_error = 0.005;
  double max_loop_seconds = 0.05;
};

enum class StopReason { running, converged, capped };

class StoppingRule {
public:
  StoppingRule(StoppingLimits limits, std::size_t required_batches)
      : limits_(limits), required_batches_(required_batches) {}

  // After each timed batch: every batch's seconds so far and the loop's wall seconds so far.
  // Returns whether the loop stops here.
  [[nodiscard]] bool should_stop(const std::vector<double>& batch_seconds, double loop_seconds);

  // Why it stopped (running until it has).
  [[nodiscard]] StopReason reason() const noexcept { return reason_; }

private:
  [[nodiscard]] bool converged(const std::vector<double>& batch_seconds);

  StoppingLimits limits_;
  std::size_t required_batches_;
  // The spread is a median of all batches: judged at geometrically spaced counts, not after
  // every batch, so a loop of many short batches stays linear in their number.
  std::size_t next_check_ = 0;
  StopReason reason_ = StopReason::running;
};

} // namespace gpubench::bench
