#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace gpubench {

// How finely NVML's energy counter (nvmlDeviceGetTotalEnergyConsumption, millijoules since the
// driver loaded) resolves energy in time: the driver updates it in steps, so an energy figure
// needs a window of many steps, or one bounded by steps.
struct EnergyCounterSteps {
  double step_ms = 0.0; // the median time between two updates
  int steps = 0;        // updates seen
  double power_w = 0.0; // the mean power over the updates seen (what the GPU drew meanwhile)
};

// Polls `read` (the counter in mJ, nullopt where it cannot be read) for `window` and times its
// updates by `now`; nullopt where it could not be read, went back, or updated fewer than three
// times.
[[nodiscard]] std::optional<EnergyCounterSteps>
measure_energy_counter(const std::function<std::optional<std::uint64_t>()>& read,
                       const std::function<std::chrono::steady_clock::time_point()>& now,
                       std::chrono::milliseconds window);

// "a step every 101.5 ms (median of 5 updates), 121.0 W meanwhile" (results/h200/info.txt), or
// why there is none.
[[nodiscard]] std::string format_energy_counter(const std::optional<EnergyCounterSteps>& steps);

} // namespace gpubench
