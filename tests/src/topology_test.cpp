#include "topology.hpp"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

TEST(PcieRelation, EveryNvmlLevelHasItsNvidiaSmiName) {
  EXPECT_EQ(pcie_relation_of(0), PcieRelation::board);
  EXPECT_EQ(pcie_relation_of(10), PcieRelation::pix);
  EXPECT_EQ(pcie_relation_of(20), PcieRelation::pxb);
  EXPECT_EQ(pcie_relation_of(30), PcieRelation::phb);
  EXPECT_EQ(pcie_relation_of(40), PcieRelation::node);
  EXPECT_EQ(pcie_relation_of(50), PcieRelation::sys);
  EXPECT_EQ(pcie_relation_of(35), std::nullopt);
  EXPECT_EQ(pcie_relation_of(-1), std::nullopt);
  EXPECT_EQ(format_pcie_relation(PcieRelation::pix), "PIX (one PCIe switch)");
  EXPECT_EQ(format_pcie_relation(PcieRelation::sys), "SYS (across NUMA nodes)");
}

TEST(FormatPeerLink, AddsWherePciePathsMeetOnlyWhereNvmlSays) {
  PeerLink link;
  link.access_supported = true;
  link.native_atomics = true;
  link.nvlink = NvlinkToPeer{.links = 18, .through_switch = true, .version = "4.0",
                             .link_speed_mbps = std::nullopt};
  EXPECT_EQ(format_peer_link(link), "access 1, atomics 1, rank 0, NVLink 4.0 x18 through NVSwitch");
  link.pcie = PcieRelation::node;
  EXPECT_EQ(format_peer_link(link), "access 1, atomics 1, rank 0, NVLink 4.0 x18 through "
                                    "NVSwitch, PCIe NODE (host bridges of one NUMA node)");
}

} // namespace
} // namespace gpubench
