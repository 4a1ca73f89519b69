#pragma once

#include "clock_watch.hpp"

#include <benchmark/benchmark.h>

#include <cstddef>
#include <string>

namespace gpubench::bench {

// Google Benchmark's timed loop for work measured in batches: time_batch() runs `batch`
// operations and returns their seconds, which become those iterations' manual time. The SM
// clock is watched across the loop (ClockWatch; `label` is the benchmark's own label). Returns
// the seconds measured in all, for per-operation counters.
template <typename TimeBatch>
double timed_loop(benchmark::State& state, std::size_t batch, TimeBatch&& time_batch,
                  const std::string& label = "") {
  const ClockWatch clock_watch;
  double total_seconds = 0.0;
  while (state.KeepRunningBatch(static_cast<benchmark::IterationCount>(batch))) {
    const double seconds = time_batch();
    total_seconds += seconds;
    state.SetIterationTime(seconds);
  }
  clock_watch.finish(state, label);
  return total_seconds;
}

} // namespace gpubench::bench
