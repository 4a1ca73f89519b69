#pragma once

#include "gpu_context.hpp"
#include "gpu_health.hpp"
#include "nvml.hpp"

#include <memory>
#include <vector>

namespace gpubench::bench {

// Each device's health (NVML) before and after a run, for the JSON context: gpu_health_before
// and gpu_health_after for the first device and, with several, device_<N>_health_before and
// device_<N>_health_after for each. Each value is one line of JSON (format_health_json); without
// NVML every field reads "not reported".
class RunHealth {
public:
  // Reads each device's health and starts collecting its Xid events (sessions open).
  explicit RunHealth(const std::vector<int>& devices);

  [[nodiscard]] ContextEntries before() const;
  // The health now, with the clock limits that grew and the Xid events since construction.
  [[nodiscard]] ContextEntries after();

private:
  struct Device {
    int ordinal = 0;
    GpuHealth before;
    std::unique_ptr<Nvml::XidEvents> xid_events; // null without NVML
  };
  [[nodiscard]] ContextEntries entries(const std::string& suffix,
                                       const std::vector<std::string>& values) const;

  std::vector<Device> devices_;
};

} // namespace gpubench::bench
