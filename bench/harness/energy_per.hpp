#pragma once

#include "family.hpp"

#include <cstddef>
#include <string_view>

namespace gpubench::bench {

// The unit an energy figure is given in: its counter, as the family facts show it, and how
// many of the unit's energy a joule is (1 for J, 1e6 for µJ). Each figure has a twin above the
// devices' idle power, its counter suffixed `_above_idle`.
struct EnergyUnit {
  std::string_view counter;
  std::string_view unit;
  double per_joule;
};

inline constexpr EnergyUnit joules_per_gb{"joules_per_gb", "J/GB", 1.0};
inline constexpr EnergyUnit uj_per_launch{"uj_per_launch", "µJ", 1e6};

// What one operation of a benchmark is in its energy unit's denominator: the GB it moves,
// counted as its bytes_per_second counts them (bytes(), 1e9 bytes a GB), or one launch.
struct EnergyPer {
  EnergyUnit unit;
  double units_per_op;
  [[nodiscard]] static EnergyPer bytes(std::size_t bytes_per_op) {
    return {joules_per_gb, static_cast<double>(bytes_per_op) * 1e-9};
  }
  [[nodiscard]] static EnergyPer launch() { return {uj_per_launch, 1.0}; }
};

// The figures a family that reports `unit` declares: the energy, and the energy above idle;
// lower is better, each drawn in panels of its own beside the family's figure.
[[nodiscard]] Figure energy_figure(const EnergyUnit& unit);
[[nodiscard]] Figure energy_above_idle_figure(const EnergyUnit& unit);

} // namespace gpubench::bench
