#include "clock_watch.hpp"

#include "kernel_clock_probe.hpp"
#include "session.hpp"

#include <algorithm>

namespace gpubench::bench {
namespace {
std::optional<int> sm_clock_mhz(const Session& session) {
  const auto telemetry = session.telemetry();
  return telemetry ? std::optional<int>(telemetry->sm_clock_mhz) : std::nullopt;
}
} // namespace

LoopClocks loop_clocks(std::span<const DeviceClocks> devices) {
  LoopClocks loop;
  for (const DeviceClocks& d : devices) {
    if (d.start_mhz && d.end_mhz) {
      loop.throttled =
          loop.throttled || *d.end_mhz < (1.0 - ClockWatch::throttle_drop) * *d.start_mhz;
      if (!loop.end_mhz || *d.end_mhz < *loop.end_mhz) {
        loop.start_mhz = d.start_mhz;
        loop.end_mhz = d.end_mhz;
      }
    }
    if (d.kernel_mhz) {
      loop.kernel_mhz = std::min(loop.kernel_mhz.value_or(*d.kernel_mhz), *d.kernel_mhz);
    }
    if (d.limited_ns) {
      loop.limited_ns = std::max(loop.limited_ns.value_or(0), *d.limited_ns);
      loop.throttled = loop.throttled || *d.limited_ns > 0;
    }
  }
  return loop;
}

ClockWatch::ClockWatch(const std::vector<Session*>& sessions) {
  for (const Session* session : sessions) {
    starts_.push_back({session, sm_clock_mhz(*session), session->clock_limits()});
  }
}

void ClockWatch::finish(benchmark::State& state, const std::string& label) const {
  std::vector<DeviceClocks> devices;
  for (const Start& start : starts_) {
    // First, while the clock is where the loop left it.
    DeviceClocks d{start.mhz, std::nullopt, std::nullopt, kernel_sm_clock_mhz(*start.session)};
    d.end_mhz = sm_clock_mhz(*start.session);
    if (const auto end_limits = start.session->clock_limits(); start.limits && end_limits) {
      d.limited_ns = clock_limited_ns(*start.limits, *end_limits);
    }
    devices.push_back(d);
  }
  const LoopClocks loop = loop_clocks(devices);
  if (loop.kernel_mhz) {
    state.counters["sm_clock_kernel_mhz"] = *loop.kernel_mhz;
  }
  if (loop.start_mhz && loop.end_mhz) {
    state.counters["sm_clock_start_mhz"] = *loop.start_mhz;
    state.counters["sm_clock_end_mhz"] = *loop.end_mhz;
  }
  if (loop.limited_ns) {
    state.counters["clock_limited_ms"] = static_cast<double>(*loop.limited_ns) * 1e-6;
  }
  const std::string full =
      loop.throttled ? (label.empty() ? "throttled" : label + ",throttled") : label;
  if (!full.empty()) {
    state.SetLabel(full);
  }
}

} // namespace gpubench::bench
