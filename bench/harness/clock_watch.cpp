#include "clock_watch.hpp"

#include "kernel_clock_probe.hpp"
#include "session.hpp"

namespace gpubench::bench {
namespace {
std::optional<int> sm_clock_mhz(const Session& session) {
  const auto telemetry = session.telemetry();
  return telemetry ? std::optional<int>(telemetry->sm_clock_mhz) : std::nullopt;
}
} // namespace

ClockWatch::ClockWatch(const Session& session)
    : session_(session), start_mhz_(sm_clock_mhz(session)), start_limits_(session.clock_limits()) {}

void ClockWatch::finish(benchmark::State& state, const std::string& label) const {
  // First, while the clock is where the loop left it.
  if (const auto kernel_mhz = kernel_sm_clock_mhz(session_)) {
    state.counters["sm_clock_kernel_mhz"] = *kernel_mhz;
  }
  const auto end_mhz = sm_clock_mhz(session_);
  bool throttled = start_mhz_ && end_mhz && *end_mhz < (1.0 - throttle_drop) * *start_mhz_;
  if (start_mhz_ && end_mhz) {
    state.counters["sm_clock_start_mhz"] = *start_mhz_;
    state.counters["sm_clock_end_mhz"] = *end_mhz;
  }
  if (const auto end_limits = session_.clock_limits(); start_limits_ && end_limits) {
    const std::uint64_t limited_ns = clock_limited_ns(*start_limits_, *end_limits);
    state.counters["clock_limited_ms"] = static_cast<double>(limited_ns) * 1e-6;
    throttled = throttled || limited_ns > 0;
  }
  const std::string full = throttled ? (label.empty() ? "throttled" : label + ",throttled") : label;
  if (!full.empty()) {
    state.SetLabel(full);
  }
}

} // namespace gpubench::bench
