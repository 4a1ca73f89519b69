#include "topology.hpp"

#include "context.hpp"
#include "device_info.hpp"
#include "driver_api.hpp"

#include <fmt/format.h>

namespace gpubench {
namespace {
int p2p_attribute(CUdevice_P2PAttribute attribute, CUdevice source, CUdevice destination) {
  int value = 0;
  GPUBENCH_CU(cuDeviceGetP2PAttribute, &value, attribute, source, destination);
  return value;
}
} // namespace

std::vector<PeerLink> peer_links(const std::vector<int>& ordinals, const Nvml* nvml) {
  std::vector<PeerLink> links;
  for (const int source : ordinals) {
    for (const int destination : ordinals) {
      if (source == destination) {
        continue;
      }
      const CUdevice src = device_at(source);
      const CUdevice dst = device_at(destination);
      PeerLink link;
      link.source = source;
      link.destination = destination;
      link.access_supported =
          p2p_attribute(CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, src, dst) != 0;
      link.native_atomics =
          p2p_attribute(CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, src, dst) != 0;
      link.performance_rank = p2p_attribute(CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, src, dst);
      if (nvml != nullptr) {
        const std::string bus = query_device(source).pci_bus_id;
        const std::string peer_bus = query_device(destination).pci_bus_id;
        link.nvlink = nvml->nvlink_to(bus, peer_bus);
        link.pcie = nvml->pcie_relation(bus, peer_bus);
      }
      links.push_back(link);
    }
  }
  return links;
}

std::string format_peer_link(const PeerLink& link) {
  std::string nvlink = "NVLink unavailable";
  if (link.nvlink && link.nvlink->links == 0) {
    nvlink = "no NVLink";
  } else if (link.nvlink) {
    nvlink = fmt::format("NVLink {} x{}{}", link.nvlink->version, link.nvlink->links,
                         link.nvlink->through_switch ? " through NVSwitch" : "");
    if (link.nvlink->link_speed_mbps) {
      nvlink += fmt::format(" at {} MB/s", *link.nvlink->link_speed_mbps);
    }
  }
  const std::string pcie = link.pcie ? ", PCIe " + format_pcie_relation(*link.pcie) : "";
  return fmt::format("access {}, atomics {}, rank {}, {}{}", link.access_supported ? 1 : 0,
                     link.native_atomics ? 1 : 0, link.performance_rank, nvlink, pcie);
}

std::string format_peer_matrix(const std::vector<int>& ordinals,
                               const std::vector<PeerLink>& links) {
  std::string text = fmt::format("{:>8}", "src\\dst");
  for (const int destination : ordinals) {
    text += fmt::format("{:>10}", fmt::format("GPU{}", destination));
  }
  text += '\n';
  for (const int source : ordinals) {
    text += fmt::format("{:>8}", fmt::format("GPU{}", source));
    for (const int destination : ordinals) {
      std::string cell = "X";
      for (const PeerLink& link : links) {
        if (link.source == source && link.destination == destination) {
          cell = link.access_supported ? "P2P" : "-";
          if (link.nvlink && link.nvlink->links > 0) {
            cell += fmt::format(" NV{}", link.nvlink->links);
          }
        }
      }
      text += fmt::format("{:>10}", cell);
    }
    text += '\n';
  }
  return text;
}

} // namespace gpubench
