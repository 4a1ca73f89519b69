#pragma once

#include <cstdint>
#include <span>

namespace gpubench {

// How a paired ratio's confidence interval is drawn: a percentile bootstrap over the rounds.
// The seed is fixed, so the same rounds always give the same interval.
struct BootstrapSettings {
  int resamples = 2000;
  double confidence = 0.95;
  std::uint64_t seed = 0x9e3779b97f4a7c15ULL;
};

// A ratio of two costs and its confidence interval.
struct RatioInterval {
  double estimate = 0.0;
  double lo = 0.0;
  double hi = 0.0;
};

// The cost of `numerator` relative to `denominator`, measured in the same rounds: round i timed
// both, so each round gives one ratio numerator[i] / denominator[i], and whatever slowed the
// host during round i slowed both. The estimate is the median of the per-round ratios (a round
// an interrupt stretched moves it no more than any other round); the interval is the percentile
// bootstrap of that median, resampling whole rounds. Throws std::invalid_argument for spans of
// different lengths, fewer than two rounds, or a time that is not finite and positive.
[[nodiscard]] RatioInterval paired_ratio(std::span<const double> numerator,
                                         std::span<const double> denominator,
                                         const BootstrapSettings& settings = {});

// Whether `ratio` tells its two costs apart on this host: its interval lies wholly outside
// both 1 and `same_path`, the interval of one path against itself measured in the same rounds
// (what the host lets anyone resolve: two batches of identical launches differ by that much).
[[nodiscard]] bool difference_resolved(const RatioInterval& ratio, const RatioInterval& same_path);

} // namespace gpubench
