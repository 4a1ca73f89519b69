#pragma once

#include "batch_spread.hpp"

#include <benchmark/benchmark.h>

#include <cstddef>

namespace gpubench::bench {

// What paces a figure: the host CPU (a host-clock figure, what a caller waits or spends, or GPU
// work the driver stages on the host, as a pageable copy) or the GPU (events around work the
// GPU runs on its own). Written as the host_timed counter: 1 for host, 0 for gpu.
enum class Clock { gpu, host };

// Hands a timed loop's figure to Google Benchmark: exactly the iterations it asked for
// (state.max_iterations), each taking the median batch's time per operation, so its real_time
// is the median batch per operation. The count is not what the loop timed: Google Benchmark
// fixes the iterations of a benchmark's first repetition for all the others and aborts where
// one reports another count, while the stopping rule times as many batches as each repetition
// needs. What was timed is in the counters: ops (every operation timed), batches, noise_pct
// (the batches' relative spread in %), mean_over_median_pct (how far the mean batch lies above
// the median, in %) and host_timed.
void report_loop(benchmark::State& state, const BatchSpread& spread, std::size_t ops_per_batch,
                 std::size_t batches, Clock clock);

} // namespace gpubench::bench
