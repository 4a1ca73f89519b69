#include "loop_report.hpp"

namespace gpubench::bench {

void report_loop(benchmark::State& state, const BatchSpread& spread, std::size_t ops_per_batch,
                 std::size_t batches, Clock clock) {
  const benchmark::IterationCount asked = state.max_iterations;
  const double seconds_per_op = spread.median_seconds / static_cast<double>(ops_per_batch);
  while (state.KeepRunningBatch(asked)) {
    state.SetIterationTime(seconds_per_op * static_cast<double>(asked));
  }
  state.counters["ops"] = static_cast<double>(ops_per_batch * batches);
  state.counters["batches"] = static_cast<double>(batches);
  state.counters["noise_pct"] = 100.0 * spread.relative_spread;
  state.counters["mean_over_median_pct"] =
      spread.median_seconds > 0.0 ? 100.0 * (spread.mean_seconds / spread.median_seconds - 1.0)
                                  : 0.0;
  state.counters["host_timed"] = clock == Clock::host ? 1.0 : 0.0;
}

} // namespace gpubench::bench
