#pragma once

#include "batch_spread.hpp"
#include "clock_watch.hpp"
#include "interrupt.hpp"
#include "loop_report.hpp"
#include "stopping_rule.hpp"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace gpubench::bench {

// What a timed loop measured: the median batch over its operations (the figure: a rare slow
// batch, an interrupt or a preempted host thread, does not move it), the batches timed, and
// their spread (batch_spread).
struct LoopTimes {
  double seconds_per_op = 0.0;
  std::size_t batches = 0;
  double relative_spread = 0.0;
  // GpuBatches only: each lane's own time, start to stop on its stream, the median over the
  // timed batches per operation, in the order of the lanes (the figure is the longest lane's).
  std::vector<double> lane_seconds_per_op = {};
};

// Batches Google Benchmark's request of `iterations` needs at `ops_per_batch`.
[[nodiscard]] constexpr std::size_t batches_covering(benchmark::IterationCount iterations,
                                                     std::size_t ops_per_batch) {
  const auto wanted = static_cast<std::size_t>(iterations < 0 ? 0 : iterations);
  return (wanted + ops_per_batch - 1) / ops_per_batch;
}

// Timed batches, until the StoppingRule stops them and no fewer than `required_batches`: each
// batch's seconds, in the order timed.
template <typename TimeBatch>
std::vector<double> time_batches(std::size_t required_batches, TimeBatch&& time_batch) {
  StoppingRule rule(StoppingLimits{}, required_batches);
  std::vector<double> batches;
  const auto start = std::chrono::steady_clock::now();
  do {
    throw_if_interrupted();
    batches.push_back(time_batch());
  } while (!rule.should_stop(
      batches, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()));
  return batches;
}

// The timed loop of one benchmark, inside one Google Benchmark call: time_batch() runs `batch`
// operations and returns their seconds; batches are timed until the StoppingRule stops them
// (and never fewer than cover the iterations Google Benchmark asked for), then handed to Google
// Benchmark with their counters (report_loop): its real_time is the median batch per operation.
// With gpubench's default --benchmark_min_time of 0, Google Benchmark accepts that first call; a
// larger one makes it call again for more, as it does for any benchmark. The clocks of the
// devices of `sessions` are watched across the loop (ClockWatch; `label` is the benchmark's own
// label).
template <typename TimeBatch>
LoopTimes timed_loop(benchmark::State& state, const std::vector<Session*>& sessions,
                     std::size_t batch, Clock clock, TimeBatch&& time_batch,
                     const std::string& label = "") {
  const ClockWatch clock_watch(sessions);
  const std::vector<double> batches =
      time_batches(batches_covering(state.max_iterations, batch), time_batch);
  clock_watch.finish(state, label);

  const BatchSpread spread = batch_spread(batches);
  report_loop(state, spread, batch, batches.size(), clock);
  return {spread.median_seconds / static_cast<double>(batch), batches.size(),
          spread.relative_spread};
}

} // namespace gpubench::bench
