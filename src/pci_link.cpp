#include "pci_link.hpp"

#include "sysfs_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace gpubench {
namespace {

int read_int(const std::filesystem::path& file) {
  try {
    return std::stoi(read_first_line(file));
  } catch (const std::exception&) {
    return 0;
  }
}

} // namespace

int pcie_generation_from_speed(const std::string& speed) {
  // Transfer rate per lane in GT/s by generation (PCI-SIG).
  constexpr std::array<std::pair<double, int>, 6> rates{
      {{2.5, 1}, {5.0, 2}, {8.0, 3}, {16.0, 4}, {32.0, 5}, {64.0, 6}}};
  double gts = 0.0;
  try {
    gts = std::stod(speed);
  } catch (const std::exception&) {
    return 0;
  }
  const auto* match = std::find_if(rates.begin(), rates.end(),
                                   [gts](const auto& rate) { return rate.first == gts; });
  return match == rates.end() ? 0 : match->second;
}

PciLink read_pci_link(const std::string& pci_bus_id, const std::filesystem::path& sysfs_root) {
  std::string id = pci_bus_id;
  std::transform(id.begin(), id.end(), id.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const auto dir = sysfs_root / "bus/pci/devices" / id;
  PciLink link;
  link.current_generation = pcie_generation_from_speed(read_first_line(dir / "current_link_speed"));
  link.current_width = read_int(dir / "current_link_width");
  link.max_generation = pcie_generation_from_speed(read_first_line(dir / "max_link_speed"));
  link.max_width = read_int(dir / "max_link_width");
  return link;
}

std::string format_pci_link(const PciLink& link) {
  if (link.current_generation == 0 && link.max_generation == 0) {
    return "unavailable";
  }
  return fmt::format("Gen{} x{} (max Gen{} x{})", link.current_generation, link.current_width,
                     link.max_generation, link.max_width);
}

} // namespace gpubench
