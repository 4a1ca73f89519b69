#include "run_health.hpp"

#include "session.hpp"

#include <fmt/format.h>

namespace gpubench::bench {
namespace {
GpuHealth health_now(int ordinal) {
  const Session& s = session(ordinal);
  const Nvml* nvml = s.nvml();
  return nvml != nullptr ? nvml->health(s.device().pci_bus_id).value_or(GpuHealth{})
                         : GpuHealth{};
}
} // namespace

RunHealth::RunHealth(const std::vector<int>& devices) {
  for (const int ordinal : devices) {
    const Session& s = session(ordinal);
    Device device{ordinal, health_now(ordinal), nullptr};
    if (s.nvml() != nullptr) {
      device.xid_events = std::make_unique<Nvml::XidEvents>(*s.nvml(), s.device().pci_bus_id);
    }
    devices_.push_back(std::move(device));
  }
}

ContextEntries RunHealth::before() const {
  std::vector<std::string> values;
  for (const Device& device : devices_) {
    values.push_back(format_health_json(device.before));
  }
  return entries("before", values);
}

ContextEntries RunHealth::after() {
  std::vector<std::string> values;
  for (Device& device : devices_) {
    const GpuHealth now = health_now(device.ordinal);
    const HealthDuringRun during{
        clock_limits_that_grew(device.before, now),
        device.xid_events ? device.xid_events->drain() : std::nullopt};
    values.push_back(format_health_json(now, &during));
  }
  return entries("after", values);
}

ContextEntries RunHealth::entries(const std::string& suffix,
                                  const std::vector<std::string>& values) const {
  ContextEntries context{{"gpu_health_" + suffix, values.front()}};
  if (devices_.size() > 1) {
    for (std::size_t i = 0; i < devices_.size(); ++i) {
      context.emplace_back(fmt::format("device_{}_health_{}", devices_[i].ordinal, suffix),
                           values[i]);
    }
  }
  return context;
}

} // namespace gpubench::bench
