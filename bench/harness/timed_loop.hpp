#pragma once

#include "clock_watch.hpp"
#include "interrupt.hpp"
#include "median.hpp"

#include <benchmark/benchmark.h>

#include <cstddef>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace gpubench::bench {

// What a timed loop measured: every batch's seconds, for the total (Google Benchmark's mean)
// and for the median batch, which a rare slow batch (an interrupt, a preempted host thread)
// does not move.
struct LoopTimes {
  double total_seconds = 0.0;
  double median_batch_seconds = 0.0;
};

// Google Benchmark's timed loop for work measured in batches: time_batch() runs `batch`
// operations and returns their seconds, which become those iterations' manual time. The SM
// clock of `session`'s device is watched across the loop (ClockWatch; `label` is the
// benchmark's own label).
template <typename TimeBatch>
LoopTimes timed_loop(benchmark::State& state, const Session& session, std::size_t batch,
                     TimeBatch&& time_batch, const std::string& label = "") {
  const ClockWatch clock_watch(session);
  std::vector<double> batches;
  while (state.KeepRunningBatch(static_cast<benchmark::IterationCount>(batch))) {
    throw_if_interrupted();
    batches.push_back(time_batch());
    state.SetIterationTime(batches.back());
  }
  clock_watch.finish(state, label);
  LoopTimes times;
  times.total_seconds = std::accumulate(batches.begin(), batches.end(), 0.0);
  if (!batches.empty()) {
    times.median_batch_seconds = median(std::move(batches));
  }
  return times;
}

} // namespace gpubench::bench
