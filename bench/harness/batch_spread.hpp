#pragma once

#include <cstddef>
#include <vector>

namespace gpubench::bench {

// What a benchmark's timed batches say about its figure: the median batch, which a rare slow
// batch (an interrupt, a preempted host thread) does not move, and the spread around it.
struct BatchSpread {
  double median_seconds = 0.0;
  // The robust coefficient of variation: 1.4826 x the median absolute deviation from the median,
  // over the median. For normally distributed batch times it equals the standard deviation over
  // the mean; a few outlying batches do not move it. 0 where every batch took the same time.
  double relative_spread = 0.0;
  // The mean batch, which every slow batch moves: its excess over the median is how much
  // rare stretched batches (a host hiccup, a page fault) would add to a mean-based figure.
  double mean_seconds = 0.0;
};

// Throws std::invalid_argument for no batches.
[[nodiscard]] BatchSpread batch_spread(const std::vector<double>& batch_seconds);

// The relative standard error of the median of `batches` batches of that relative spread:
// sqrt(pi / 2) x spread / sqrt(batches), the median's large-sample error for normal noise.
[[nodiscard]] double median_relative_error(double relative_spread, std::size_t batches);

} // namespace gpubench::bench
