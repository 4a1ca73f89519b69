#pragma once

#include <benchmark/benchmark.h>

#include <optional>
#include <string>

namespace gpubench::bench {

class Session;

// Watches the SM clock (NVML) across a benchmark's timed loop, so a throttled figure is visible:
// the result gets the counter sm_clock_start_mhz / sm_clock_end_mhz and, when the clock fell by
// more than 10% from the start of the loop, the label "throttled". Does nothing without NVML.
class ClockWatch {
public:
  // Call right before the timed loop (after warm-up, when the clock has ramped up).
  explicit ClockWatch(const Session& session);
  // Call right after the timed loop; `label` is the benchmark's own label, if any.
  void finish(benchmark::State& state, const std::string& label = "") const;

  static constexpr double throttle_drop = 0.10;

private:
  const Session& session_;
  std::optional<int> start_mhz_;
};

} // namespace gpubench::bench
