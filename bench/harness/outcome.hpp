#pragma once

#include <benchmark/benchmark.h>

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

namespace gpubench::bench {

// Thrown by a benchmark body that cannot run here (the size does not fit, the driver lacks the
// call): the benchmark is marked skipped with the reason, not counted as a failure.
class SkipBenchmark : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Thrown when a benchmark's result is wrong: it fails, and gpubench exits non-zero.
class VerificationFailure : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// A benchmark that measured something wrong (a failed CUDA call, a wrong result): marked failed
// in the report and counted, so that gpubench exits non-zero.
void fail(benchmark::State& state, const std::string& why);

// A benchmark that cannot run here: marked skipped with the reason, not counted as a failure.
void skip(benchmark::State& state, const std::string& why);

[[nodiscard]] int failure_count() noexcept;

// The benchmark calls whose body ran to its end: neither skipped nor failed.
[[nodiscard]] int completed_count() noexcept;

// The reason the first skipped benchmark gave, once one was skipped.
[[nodiscard]] std::optional<std::string> first_skip();

// The sticky error that left a device unusable, once one has: every later benchmark on any
// device is skipped naming it, since a faulted context fails every call that follows.
[[nodiscard]] std::optional<std::string> device_fault();

// Runs a benchmark body. SkipBenchmark becomes skip(); any other exception becomes fail() with
// its one-line message instead of escaping into Google Benchmark; a CUDA error that leaves the
// context unusable (an illegal address, a trap, a lost device) is recorded as the device fault.
void guarded(benchmark::State& state, const std::function<void()>& body);

} // namespace gpubench::bench
