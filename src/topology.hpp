#pragma once

#include "nvml.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpubench {

// How one GPU reaches another: what the driver says of peer access between them
// (cuDeviceGetP2PAttribute) and, where NVML answers, the NVLinks that join them.
struct PeerLink {
  int source = 0;
  int destination = 0;
  bool access_supported = false;
  bool native_atomics = false;
  int performance_rank = 0;
  std::optional<NvlinkToPeer> nvlink; // nullopt: NVML cannot say
  std::optional<PcieRelation> pcie;   // nullopt: NVML cannot say
};

// Every ordered pair of `ordinals`; `nvml` may be null.
[[nodiscard]] std::vector<PeerLink> peer_links(const std::vector<int>& ordinals, const Nvml* nvml);

// "access 1, atomics 1, rank 0, NVLink 4.0 x18 through NVSwitch" (results/h200x2/info.txt),
// then " at <n> MB/s" where NVML gives the links' speed and ", PCIe <where the two GPUs' PCIe
// paths meet>" where it says ("NVLink unavailable" where NVML cannot say, "no NVLink" where no
// link joins them).
[[nodiscard]] std::string format_peer_link(const PeerLink& link);

// The pairs as a matrix, one row per source: each cell "P2P" (access), "-" (none) or "X" for
// the diagonal, followed by the NVLink count where there are links ("NV18").
[[nodiscard]] std::string format_peer_matrix(const std::vector<int>& ordinals,
                                             const std::vector<PeerLink>& links);

} // namespace gpubench
