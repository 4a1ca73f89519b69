#include "pci_link.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace gpubench {
namespace {

TEST(PciLink, GenerationFromTransferRate) {
  EXPECT_EQ(pcie_generation_from_speed("2.5 GT/s PCIe"), 1);
  EXPECT_EQ(pcie_generation_from_speed("16.0 GT/s PCIe"), 4);
  EXPECT_EQ(pcie_generation_from_speed("32.0 GT/s PCIe"), 5);
  EXPECT_EQ(pcie_generation_from_speed("Unknown"), 0);
  EXPECT_EQ(pcie_generation_from_speed(""), 0);
}

TEST(PciLink, ReadsSysfsForTheBusIdInLowerCase) {
  const auto root = std::filesystem::temp_directory_path() / "gpubench_pci_link_test";
  const auto dir = root / "bus/pci/devices/0000:3b:00.0";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "current_link_speed") << "16.0 GT/s PCIe\n";
  std::ofstream(dir / "current_link_width") << "16\n";
  std::ofstream(dir / "max_link_speed") << "32.0 GT/s PCIe\n";
  std::ofstream(dir / "max_link_width") << "16\n";
  const PciLink link = read_pci_link("0000:3B:00.0", root);
  EXPECT_EQ(format_pci_link(link), "Gen4 x16 (max Gen5 x16)");
  std::filesystem::remove_all(root);
}

TEST(PciLink, MissingSysfsIsUnavailable) {
  EXPECT_EQ(format_pci_link(read_pci_link("0000:00:00.0", "/nonexistent")), "unavailable");
}

} // namespace
} // namespace gpubench
