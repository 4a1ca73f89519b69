#pragma once

#include <filesystem>
#include <string>

namespace gpubench {

// The PCIe link as Linux reports it in sysfs for the device's PCI function: the driver API has
// no attribute for it. The current generation drops while the link idles (ASPM), so the
// maximum is reported beside it.
struct PciLink {
  int current_generation = 0; // 0: unknown
  int current_width = 0;
  int max_generation = 0;
  int max_width = 0;
};

// Reads `<sysfs_root>/bus/pci/devices/<bus id>/{current,max}_link_{speed,width}`.
[[nodiscard]] PciLink read_pci_link(const std::string& pci_bus_id,
                                    const std::filesystem::path& sysfs_root = "/sys");

// "32.0 GT/s PCIe" -> 5; 0 for anything unrecognised.
[[nodiscard]] int pcie_generation_from_speed(const std::string& speed);

// "Gen5 x16 (max Gen5 x16)", or "unavailable" when sysfs does not say.
[[nodiscard]] std::string format_pci_link(const PciLink& link);

} // namespace gpubench
