#include "gpu_loop_check.hpp"

#include <cuda_runtime_api.h>

#include <fmt/format.h>

namespace gpubench::bench {

std::string device_launch_error(unsigned int code) {
  return fmt::format("{} ({})", cudaGetErrorName(static_cast<cudaError_t>(code)), code);
}

std::optional<std::string> loop_counts_mismatch(const GpuLoopCounters& counters,
                                                unsigned int iterations, std::uint64_t loops) {
  if (counters.launch_failures != 0) {
    return fmt::format("{} device-side graph launches failed, the first with {} when {} of {} "
                       "iterations were left",
                       counters.launch_failures, device_launch_error(counters.first_failure),
                       counters.failed_at_remaining, iterations);
  }
  if (counters.strays != 0) {
    return fmt::format("{} iterations ran with none left to run", counters.strays);
  }
  const std::uint64_t expected = loops * iterations;
  if (counters.ran != expected || counters.intact != expected) {
    return fmt::format("{} loops of {} iterations made, {} iterations ran, {} saw their "
                       "parameters intact",
                       loops, iterations, counters.ran, counters.intact);
  }
  if (counters.remaining != 0) {
    return fmt::format("the last loop stopped with {} of {} iterations left", counters.remaining,
                       iterations);
  }
  return std::nullopt;
}

std::optional<std::string> loop_order_mismatch(std::span<const GpuLoopStamp> stamps) {
  for (std::size_t i = 0; i < stamps.size(); ++i) {
    const GpuLoopStamp& stamp = stamps[i];
    if (stamp.start_ns == 0 || stamp.end_ns < stamp.start_ns) {
      return fmt::format("iteration {} of {} stamped {}..{} ns: it did not run whole", i,
                         stamps.size(), stamp.start_ns, stamp.end_ns);
    }
    if (i > 0 && stamp.start_ns < stamps[i - 1].end_ns) {
      return fmt::format("iteration {} of {} started at {} ns, before iteration {} ended at {} ns",
                         i, stamps.size(), stamp.start_ns, i - 1, stamps[i - 1].end_ns);
    }
  }
  return std::nullopt;
}

} // namespace gpubench::bench
