#include "device_energy.hpp"

#include "energy_window.hpp"
#include "session.hpp"

#include <fmt/format.h>

#include <chrono>

namespace gpubench::bench {

DeviceEnergy::DeviceEnergy(Session& session) : session_(session) {
  const Nvml* nvml = session.nvml();
  if (nvml == nullptr) {
    absent_ = "NVML is not available";
    return;
  }
  if (!read_mj()) {
    absent_ = "NVML has no energy counter on this GPU";
    return;
  }
  idle_ = measure_energy_counter([this] { return read_mj(); },
                                 [] { return std::chrono::steady_clock::now(); }, idle_window);
  if (!idle_) {
    absent_ = fmt::format("NVML's energy counter did not step forward three times in {:.1f} s",
                          std::chrono::duration<double>(idle_window).count());
  }
}

std::optional<std::uint64_t> DeviceEnergy::read_mj() const {
  const Nvml* nvml = session_.nvml();
  return nvml != nullptr ? nvml->energy_mj(session_.device().pci_bus_id) : std::nullopt;
}

ContextEntries energy_context(const std::vector<int>& ordinals) {
  const EnergyWindowLimits limits;
  ContextEntries entries{
      {"energy",
       fmt::format("NVML's energy counter (nvmlDeviceGetTotalEnergyConsumption) from one of its "
                   "updates to the first at least {} updates, {} steps and {:g} s later, while "
                   "the benchmark's operation runs in batches after its timed loop; idle power "
                   "over {:g} s with nothing running, before the first benchmark",
                   limits.least_steps, limits.least_steps, limits.least_seconds,
                   std::chrono::duration<double>(DeviceEnergy::idle_window).count())}};
  for (const int ordinal : ordinals) {
    const DeviceEnergy& energy = session(ordinal).state<DeviceEnergy>();
    const std::string key = fmt::format("device_{}_energy", ordinal);
    if (!energy.idle()) {
      entries.emplace_back(key, "absent: " + energy.absent());
      continue;
    }
    const EnergyCounterSteps& idle = *energy.idle();
    entries.emplace_back(key, fmt::format("a step every {:.1f} ms (median of {} updates), "
                                          "{:.1f} W idle",
                                          idle.step_ms, idle.steps, idle.power_w));
    entries.emplace_back(key + "_step_ms", fmt::format("{:.1f}", idle.step_ms));
    entries.emplace_back(fmt::format("device_{}_idle_power_w", ordinal),
                         fmt::format("{:.2f}", idle.power_w));
  }
  return entries;
}

} // namespace gpubench::bench
