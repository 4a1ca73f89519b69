#pragma once

#include <benchmark/benchmark.h>

#include <optional>
#include <string>
#include <vector>

namespace gpubench::bench {

// How long one repetition measures. gpubench's default, 0.05 s, suits benchmarks timed with CUDA
// events. A benchmark timed on the host clock measures the host too, and on a shared machine the
// host's speed wanders over tenths of a second (the host_drift probe in results/h200/stability/
// saw a fixed arithmetic loop move 10% and single-thread memcpy 50% within seconds): a 0.05 s
// repetition samples one moment of that wander, so those benchmarks keep Google Benchmark's own
// default, 0.5 s. A --benchmark_min_time on the command line governs every benchmark.
struct RunLengths {
  std::optional<double> host_timed_seconds;
};

[[nodiscard]] RunLengths run_lengths(const std::vector<std::string>& benchmark_args);

// Appends gpubench's default --benchmark_min_time to Google Benchmark's arguments, unless they
// already hold one.
void add_default_min_time(std::vector<std::string>& benchmark_args);

// Registers `benchmark` as timed on the host clock: it gets the host-timed run length, if any.
benchmark::internal::Benchmark* host_timed(benchmark::internal::Benchmark* benchmark,
                                           const RunLengths& lengths);

} // namespace gpubench::bench
