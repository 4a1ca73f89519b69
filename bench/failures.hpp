#pragma once

#include <benchmark/benchmark.h>

#include <exception>
#include <string>

namespace gpubench::bench {

// A benchmark that measured something wrong (a failed CUDA call, a wrong result): marked
// failed in the report and counted, so that gpubench exits non-zero.
void fail(benchmark::State& state, const std::string& why);

// A benchmark that cannot run here (the size does not fit, the driver lacks the call): marked
// skipped with the reason, not counted as a failure.
void skip(benchmark::State& state, const std::string& why);

[[nodiscard]] int failure_count() noexcept;

// Runs a benchmark body; an exception becomes fail() with its one-line message instead of
// escaping into Google Benchmark.
template <typename Body> void guarded(benchmark::State& state, Body&& body) {
  try {
    body();
  } catch (const std::exception& error) {
    fail(state, error.what());
  }
}

} // namespace gpubench::bench
