#pragma once

#include "gpu_health.hpp"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gpubench::bench {

class Session;

// One device's clocks across a timed loop.
struct DeviceClocks {
  std::optional<int> start_mhz;            // NVML's SM clock before the loop
  std::optional<int> end_mhz;              // and after it
  std::optional<std::uint64_t> limited_ns; // clock_limited_ns over the loop; nullopt unread
  std::optional<double> kernel_mhz;        // the SM clock a kernel read after it
};

// What a loop's clocks say over every device it ran on: the SM clocks of the device whose NVML
// clock ended lowest, the lowest clock a kernel read, the longest limit, and "throttled" where
// any device's SM clock fell by more than ClockWatch::throttle_drop or any limit held it.
struct LoopClocks {
  std::optional<int> start_mhz;
  std::optional<int> end_mhz;
  std::optional<double> kernel_mhz;
  std::optional<std::uint64_t> limited_ns;
  bool throttled = false;
};
[[nodiscard]] LoopClocks loop_clocks(std::span<const DeviceClocks> devices);

// Watches the clocks (NVML) of every device a benchmark's timed loop runs on, so a figure taken
// with a clock held down says so: the counters sm_clock_start_mhz / sm_clock_end_mhz (the SM
// clock at each end), clock_limited_ms (how long one clock-limiting cause, power, thermal,
// reliability, board or sync-boost limit, held the clocks down during the loop at the longest,
// from NVML's violation times: clock_limited_ns) and the label "throttled" (loop_clocks). Does
// nothing without NVML; a counter NVML cannot give is left out. Beside NVML's view,
// sm_clock_kernel_mhz: the SM clock as a kernel reads it right after the loop
// (kernel_clock_probe.hpp), reported as it is; the label follows NVML's readings alone, which
// see the whole loop, where the probe sees its last 20 µs.
class ClockWatch {
public:
  // Call right before the timed loop (after warm-up, when the clocks have ramped up).
  explicit ClockWatch(const std::vector<Session*>& sessions);
  // Call right after the timed loop; `label` is the benchmark's own label, if any. Throws
  // CudaError where the clock probe fails to run.
  void finish(benchmark::State& state, const std::string& label = "") const;

  static constexpr double throttle_drop = 0.10;

private:
  struct Start {
    const Session* session;
    std::optional<int> mhz;
    std::optional<ClockLimits> limits;
  };
  std::vector<Start> starts_;
};

} // namespace gpubench::bench
