#include "start_latency.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace gpubench {

StartLatencies start_latencies(std::span<const StampedLaunch> launches, const ClockRelation& before,
                               const ClockRelation& after, double timer_step_ns) {
  if (!(timer_step_ns >= 0.0) || !std::isfinite(timer_step_ns)) {
    throw std::invalid_argument("start latencies need a finite, non-negative timer step");
  }
  StartLatencies out;
  out.uncertainty_ns = std::max(before.uncertainty_ns, after.uncertainty_ns) + timer_step_ns / 2.0;
  out.ns.reserve(launches.size());
  for (const StampedLaunch& launch : launches) {
    if (launch.gpu_start_ns >
        static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      throw std::invalid_argument("a GPU timer reading past 2^63 ns");
    }
    const std::int64_t call_on_gpu = launch.host_ns + offset_at(before, after, launch.host_ns);
    out.ns.push_back(
        static_cast<double>(static_cast<std::int64_t>(launch.gpu_start_ns) - call_on_gpu) +
        timer_step_ns / 2.0);
  }
  return out;
}

std::optional<std::string> find_impossible_start(const StartLatencies& latencies) {
  for (std::size_t i = 0; i < latencies.ns.size(); ++i) {
    if (latencies.ns[i] < -latencies.uncertainty_ns) {
      return fmt::format("launch {} started {:.0f} ns before its launch call, beyond the host-GPU "
                         "clock relation's ±{:.0f} ns: the clock relation is wrong",
                         i, -latencies.ns[i], latencies.uncertainty_ns);
    }
  }
  return std::nullopt;
}

} // namespace gpubench
