#pragma once

#include "gpu_health.hpp"

#include <benchmark/benchmark.h>

#include <optional>
#include <string>

namespace gpubench::bench {

class Session;

// Watches the clocks (NVML) across a benchmark's timed loop, so a figure taken with its clocks
// held down says so: the counters sm_clock_start_mhz / sm_clock_end_mhz (the SM clock at each
// end) and clock_limited_ms (how long one clock-limiting cause, power, thermal, reliability,
// board or sync-boost limit, held the clocks down during the loop at the longest, from NVML's
// violation times: clock_limited_ns), and the label "throttled" when the SM clock fell by more than 10% or any limit held
// the clocks during the loop. Does nothing without NVML; a counter NVML cannot give is left out.
// Beside NVML's view, sm_clock_kernel_mhz: the SM clock as a kernel reads it right after the
// loop (kernel_clock_probe.hpp), reported as it is; the label follows NVML's readings alone,
// which see the whole loop, where the probe sees its last 20 µs.
class ClockWatch {
public:
  // Call right before the timed loop (after warm-up, when the clock has ramped up).
  explicit ClockWatch(const Session& session);
  // Call right after the timed loop; `label` is the benchmark's own label, if any. Throws
  // CudaError where the clock probe fails to run.
  void finish(benchmark::State& state, const std::string& label = "") const;

  static constexpr double throttle_drop = 0.10;

private:
  const Session& session_;
  std::optional<int> start_mhz_;
  std::optional<ClockLimits> start_limits_;
};

} // namespace gpubench::bench
