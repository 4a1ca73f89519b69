#include "energy_per.hpp"

#include <string>

namespace gpubench::bench {

Figure energy_figure(const EnergyUnit& unit) {
  return {.counter = std::string(unit.counter),
          .unit = std::string(unit.unit),
          .better = Better::lower,
          .panel = true};
}

Figure energy_above_idle_figure(const EnergyUnit& unit) {
  return {.counter = std::string(unit.counter) + "_above_idle",
          .unit = std::string(unit.unit) + " above idle",
          .better = Better::lower,
          .panel = true};
}

} // namespace gpubench::bench
