#pragma once

namespace gpubench::bench {

// The launch probes' device counters (kernels/launch_probe.cuh): launches that ran, and those
// that saw their parameter block intact.
struct LaunchCounts {
  unsigned long long launched = 0;
  unsigned long long intact = 0;
};

// Both wait for the device and throw CudaError.
[[nodiscard]] LaunchCounts read_launch_counts();
void reset_launch_counts();

} // namespace gpubench::bench
