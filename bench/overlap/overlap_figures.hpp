#pragma once

#include <cstddef>
#include <vector>

namespace gpubench::bench {

// The fewest seconds a round lasts, and the most operations one stream queues in it: a round
// long enough that event resolution and launch gaps are small beside it, few enough operations
// that a gated stream stays far below its queue depth (about a thousand entries).
inline constexpr double least_round_seconds = 1e-3;
inline constexpr std::size_t most_ops_per_round = 256;

// How many operations each stream queues in one round, from one operation's seconds on each
// stream alone: as many as make each stream's share of the round as long as the longest
// stream's single operation, and at least least_round_seconds, so the streams of a round run
// for about as long as each other. 1 to most_ops_per_round each. Throws std::invalid_argument
// for no streams or a time that is not positive.
[[nodiscard]] std::vector<std::size_t> ops_per_round(const std::vector<double>& op_seconds);

// What a round of streams run at once says against the same streams run alone.
struct OverlapFigures {
  // The streams' seconds alone, summed, over the round's wall time at once: 1 where the
  // streams took turns, the number of streams where each ran at its pace alone.
  double overlap = 0.0;
  // What overlap would be where every stream kept its pace alone: the sum over the longest.
  double overlap_ideal = 0.0;
  // Each stream's rate at once as a share of its rate alone, in %: its seconds alone over its
  // seconds at once (start to its stop, on its stream), times 100.
  std::vector<double> pct_of_alone;
  double slowest_pct_of_alone = 0.0;
};

// `alone_seconds`: each stream's round alone; `together_seconds`: each stream's round, start to
// its stop, with all at once; `wall_seconds`: the round at once, start to the last stop. Throws
// std::invalid_argument for no streams, lists of different lengths or a time not positive.
[[nodiscard]] OverlapFigures overlap_figures(const std::vector<double>& alone_seconds,
                                             const std::vector<double>& together_seconds,
                                             double wall_seconds);

} // namespace gpubench::bench
