#pragma once

#include "gpu_health.hpp"
#include "pci_link.hpp"

#include <cstdint>
#include <vector>

#include <memory>
#include <optional>
#include <string>

namespace gpubench {

// What NVML reports about a GPU's state at one moment: the clocks and thermals that tell a
// throttled run from a healthy one.
struct GpuTelemetry {
  int sm_clock_mhz = 0;
  int memory_clock_mhz = 0;
  int temperature_c = 0;
  double power_w = 0.0;
};

// The NVLinks joining one GPU to another, as NVML reports them.
struct NvlinkToPeer {
  int links = 0;                      // active links that reach the peer
  bool through_switch = false;        // the links end at NVSwitches that reach the peer
  std::string version;                // "4.0"
  std::optional<int> link_speed_mbps; // per link and direction
};

// Where the PCIe paths of two GPUs meet, as NVML's nvmlGpuTopologyLevel_t and nvidia-smi topo
// name it: the same board, one PCIe switch (PIX), several switches (PXB), the CPU's host bridge
// (PHB), host bridges of one NUMA node (NODE), or across NUMA nodes (SYS).
enum class PcieRelation { board = 0, pix = 10, pxb = 20, phb = 30, node = 40, sys = 50 };

// The relation NVML's level names; nullopt for a level it does not define.
[[nodiscard]] std::optional<PcieRelation> pcie_relation_of(int level);
// "PIX (one PCIe switch)", as nvidia-smi topo abbreviates it and what that means.
[[nodiscard]] std::string format_pcie_relation(PcieRelation relation);

// NVML, opened with dlopen: it ships with the driver, not the toolkit, so gpubench must start
// without it and report "unavailable" instead of failing.
class Nvml {
public:
  // Null when libnvidia-ml.so.1 is absent or nvmlInit fails.
  [[nodiscard]] static std::unique_ptr<Nvml> open();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;
  Nvml(Nvml&&) = delete;
  Nvml& operator=(Nvml&&) = delete;
  ~Nvml();

  // The kernel driver's release, e.g. "580.159.04".
  [[nodiscard]] std::optional<std::string> driver_version() const;
  [[nodiscard]] std::optional<PciLink> pci_link(const std::string& pci_bus_id) const;
  [[nodiscard]] std::optional<GpuTelemetry> telemetry(const std::string& pci_bus_id) const;
  // The active NVLinks from one GPU to another (both by PCI bus id); nullopt where NVML cannot
  // say (no NVLink support, an old driver); links == 0 where none reaches the peer.
  [[nodiscard]] std::optional<NvlinkToPeer> nvlink_to(const std::string& pci_bus_id,
                                                      const std::string& peer_pci_bus_id) const;

  // Where the PCIe paths of two GPUs meet (both by PCI bus id); nullopt where NVML cannot say.
  [[nodiscard]] std::optional<PcieRelation> pcie_relation(const std::string& pci_bus_id,
                                                          const std::string& peer_pci_bus_id) const;

  // The GPU's reliability counters and state now (nvml_health.cpp); fields NVML does not report
  // stay empty. nullopt where NVML does not know the device.
  [[nodiscard]] std::optional<GpuHealth> health(const std::string& pci_bus_id) const;
  // The health record's clock limits of the causes alone (clock_limited_ns counts no total),
  // read around every timed loop: a call into the driver of 0.64-0.75 ms per policy on an H100
  // (results/h100/untimed_costs/); nullopt where NVML does not know the device or reports no
  // violation times.
  [[nodiscard]] std::optional<ClockLimits> clock_limit_ns(const std::string& pci_bus_id) const;
  // The energy the GPU has drawn since the driver loaded, in millijoules; nullopt where NVML
  // has no energy counter for it (energy_counter.hpp says how finely it steps).
  [[nodiscard]] std::optional<std::uint64_t> energy_mj(const std::string& pci_bus_id) const;

  struct Api;

  // Xid critical errors (nvmlDeviceRegisterEvents) of one GPU, collected from construction on.
  class XidEvents {
  public:
    XidEvents(const Nvml& nvml, const std::string& pci_bus_id);
    XidEvents(const XidEvents&) = delete;
    XidEvents& operator=(const XidEvents&) = delete;
    XidEvents(XidEvents&&) = delete;
    XidEvents& operator=(XidEvents&&) = delete;
    ~XidEvents();
    // The Xids reported since construction, without waiting; nullopt where NVML does not
    // deliver Xid events for this GPU (a VM may not).
    [[nodiscard]] std::optional<std::vector<std::uint64_t>> drain();

  private:
    const Api* api_;
    struct nvmlEventSet_st* set_ = nullptr;
  };

private:
  explicit Nvml(std::unique_ptr<Api> api);
  std::unique_ptr<Api> api_;
};

// "1980 MHz SM, 3201 MHz memory, 38 C, 82.8 W" (results/h200/suite/suite.json).
[[nodiscard]] std::string format_telemetry(const GpuTelemetry& telemetry);

} // namespace gpubench
