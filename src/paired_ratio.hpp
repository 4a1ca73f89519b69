#pragma once

#include <cstddef>
#include <span>

namespace gpubench {

// A ratio of two costs and its confidence interval.
struct RatioInterval {
  double estimate = 0.0;
  double lo = 0.0;
  double hi = 0.0;
};

// The cost of `numerator` relative to `denominator`, measured in the same rounds: round i timed
// both, so each round gives one ratio numerator[i] / denominator[i], and whatever slowed the
// host during round i slowed both.
//
// The rounds come in blocks, consecutive runs of `block_sizes[b]` rounds, each measured in a
// state set up afresh (what a new process would meet: new stream, new parameter storage, a new
// graph instance, another CPU). Rounds within a block share that state and the host's slow
// drift, so they are not independent draws; blocks are, of everything but the level the host
// sets for the whole process. Each block gives one ratio, the median of its rounds' ratios (a
// round an interrupt stretched moves it no more than any other round); the estimate is their
// geometric mean, and the interval the Student-t interval of the mean of their logarithms, so
// the spread between blocks, not the spread of rounds within one, sets its width. Throws std::invalid_argument for spans of different
// lengths, block sizes that do not cover them, an empty block, fewer than two blocks, a time
// that is not finite and positive, or a confidence outside (0, 1).
[[nodiscard]] RatioInterval paired_ratio(std::span<const double> numerator,
                                         std::span<const double> denominator,
                                         std::span<const std::size_t> block_sizes,
                                         double confidence = 0.95);

// Whether `ratio` tells its two costs apart on this host: its interval lies wholly outside
// both 1 and `same_path`, the interval of one path against itself measured in the same rounds
// (what the host lets anyone resolve: two batches of identical launches differ by that much).
[[nodiscard]] bool difference_resolved(const RatioInterval& ratio, const RatioInterval& same_path);

} // namespace gpubench
