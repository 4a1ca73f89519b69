#include "kernel_clock.hpp"

namespace gpubench {

std::optional<double> kernel_clock_mhz(std::uint64_t cycles, std::uint64_t ns) {
  if (cycles == 0 || ns == 0) {
    return std::nullopt;
  }
  return static_cast<double>(cycles) / static_cast<double>(ns) * 1e3;
}

} // namespace gpubench
