#pragma once

#include "energy_counter.hpp"
#include "json_context.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpubench::bench {

class Session;

// A device's energy counter (NVML's nvmlDeviceGetTotalEnergyConsumption) as a run with
// --energy reads it: how finely it steps and what the device draws idle, both from the counter
// polled for `idle_window` with nothing running, once per device and run, before the first
// benchmark (a Session state: built where main asks for it). Where there is no counter, why.
class DeviceEnergy {
public:
  static constexpr std::chrono::milliseconds idle_window{1500};

  explicit DeviceEnergy(Session& session);

  // The step and the idle power (EnergyCounterSteps::power_w); nullopt without a counter.
  [[nodiscard]] const std::optional<EnergyCounterSteps>& idle() const noexcept { return idle_; }
  // Why there is no counter ("NVML has no energy counter on this GPU"); empty with one.
  [[nodiscard]] const std::string& absent() const noexcept { return absent_; }
  // The counter now, in mJ; nullopt where it cannot be read.
  [[nodiscard]] std::optional<std::uint64_t> read_mj() const;

private:
  const Session& session_;
  std::optional<EnergyCounterSteps> idle_;
  std::string absent_;
};

// The context of an energy run: how a window is taken (`energy`) and, for each device in
// `ordinals` (their sessions open), `device_<N>_energy` (its step and idle power, or why it has
// no counter), `device_<N>_energy_step_ms` and `device_<N>_idle_power_w` where it has one.
// Measures each device's idle power where it is not yet measured.
[[nodiscard]] ContextEntries energy_context(const std::vector<int>& ordinals);

} // namespace gpubench::bench
