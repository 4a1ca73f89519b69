#include "energy_counter.hpp"

#include "median.hpp"

#include <fmt/format.h>

#include <vector>

namespace gpubench {

std::optional<EnergyCounterSteps>
measure_energy_counter(const std::function<std::optional<std::uint64_t>()>& read,
                       const std::function<std::chrono::steady_clock::time_point()>& now,
                       std::chrono::milliseconds window) {
  const auto first = read();
  if (!first) {
    return std::nullopt;
  }
  const auto start = now();
  std::uint64_t last = *first;
  std::vector<std::chrono::steady_clock::time_point> at;
  std::vector<std::uint64_t> value;
  for (auto t = start; t - start < window; t = now()) {
    const auto mj = read();
    if (!mj) {
      return std::nullopt;
    }
    if (*mj < last) {
      return std::nullopt; // a counter that goes back (or wraps) measures nothing
    }
    if (*mj != last) {
      at.push_back(t);
      value.push_back(*mj);
      last = *mj;
    }
  }
  // The first update seen ends a step that began before the window: steps run between updates.
  if (at.size() < 3) {
    return std::nullopt;
  }
  std::vector<double> gaps_ms;
  for (std::size_t i = 1; i < at.size(); ++i) {
    gaps_ms.push_back(std::chrono::duration<double, std::milli>(at[i] - at[i - 1]).count());
  }
  const double span_s = std::chrono::duration<double>(at.back() - at.front()).count();
  return EnergyCounterSteps{median(std::move(gaps_ms)), static_cast<int>(at.size()),
                            static_cast<double>(value.back() - value.front()) * 1e-3 / span_s};
}

std::string format_energy_counter(const std::optional<EnergyCounterSteps>& steps) {
  if (!steps) {
    return "not reported (NVML gives no energy counter here, or it did not move)";
  }
  return fmt::format("a step every {:.1f} ms (median of {} updates), {:.1f} W meanwhile",
                     steps->step_ms, steps->steps, steps->power_w);
}

} // namespace gpubench
