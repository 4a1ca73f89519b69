#include "nvml.hpp"

#include "nvml_api.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>

namespace gpubench {
namespace {
// nvmlNvlinkVersion_t's codes, as nvmlDeviceGetNvLinkVersion returns them.
std::string nvlink_version_name(unsigned int code) {
  constexpr std::array<const char*, 9> names{"invalid", "1.0", "2.0", "2.2", "3.0",
                                             "3.1",     "4.0", "5.0", "6.0"};
  return code < names.size() ? names[code] : fmt::format("code {}", code);
}

// Domain, bus and device of a PCI bus id ("0000:18:00.0" or NVML's "00000000:18:00.0").
std::optional<std::array<unsigned int, 3>> parse_bus_id(const std::string& id) {
  std::array<unsigned int, 3> parts{};
  unsigned int function = 0;
  if (std::sscanf(id.c_str(), "%x:%x:%x.%x", &parts[0], &parts[1], &parts[2], &function) != 4) {
    return std::nullopt;
  }
  return parts;
}
} // namespace

std::unique_ptr<Nvml> Nvml::open() {
  auto api = std::make_unique<Api>();
  api->library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (api->library == nullptr) {
    return nullptr;
  }
  void* lib = api->library;
  const bool bound = bind(lib, api->init, "nvmlInit_v2") &&
                     bind(lib, api->shutdown, "nvmlShutdown") &&
                     bind(lib, api->driver_version, "nvmlSystemGetDriverVersion") &&
                     bind(lib, api->device_by_bus_id, "nvmlDeviceGetHandleByPciBusId_v2") &&
                     bind(lib, api->clock, "nvmlDeviceGetClockInfo") &&
                     bind(lib, api->temperature, "nvmlDeviceGetTemperature") &&
                     bind(lib, api->power_mw, "nvmlDeviceGetPowerUsage") &&
                     bind(lib, api->link_generation, "nvmlDeviceGetCurrPcieLinkGeneration") &&
                     bind(lib, api->link_width, "nvmlDeviceGetCurrPcieLinkWidth") &&
                     bind(lib, api->max_link_generation, "nvmlDeviceGetMaxPcieLinkGeneration") &&
                     bind(lib, api->max_link_width, "nvmlDeviceGetMaxPcieLinkWidth");
  bind(lib, api->nvlink_state, "nvmlDeviceGetNvLinkState");
  bind(lib, api->nvlink_version, "nvmlDeviceGetNvLinkVersion");
  bind(lib, api->nvlink_remote_pci, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
  bind(lib, api->field_values, "nvmlDeviceGetFieldValues");
  bind(lib, api->nvlink_remote_type, "nvmlDeviceGetNvLinkRemoteDeviceType");
  bind(lib, api->p2p_status, "nvmlDeviceGetP2PStatus");
  bind(lib, api->common_ancestor, "nvmlDeviceGetTopologyCommonAncestor");
  bind_health_api(*api);
  if (!bound || api->init() != NVML_SUCCESS) {
    dlclose(lib);
    return nullptr;
  }
  return std::unique_ptr<Nvml>(new Nvml(std::move(api)));
}

Nvml::Nvml(std::unique_ptr<Api> api) : api_(std::move(api)) {}

Nvml::~Nvml() {
  api_->shutdown();
  dlclose(api_->library);
}

std::optional<std::string> Nvml::driver_version() const {
  std::array<char, 96> text{};
  if (api_->driver_version(text.data(), text.size()) != NVML_SUCCESS) {
    return std::nullopt;
  }
  return std::string(text.data());
}

std::optional<PciLink> Nvml::pci_link(const std::string& pci_bus_id) const {
  nvmlDevice_t device = api_->device(pci_bus_id);
  std::array<unsigned int, 4> v{};
  if (device == nullptr || api_->link_generation(device, &v[0]) != NVML_SUCCESS ||
      api_->link_width(device, &v[1]) != NVML_SUCCESS ||
      api_->max_link_generation(device, &v[2]) != NVML_SUCCESS ||
      api_->max_link_width(device, &v[3]) != NVML_SUCCESS) {
    return std::nullopt;
  }
  return PciLink{static_cast<int>(v[0]), static_cast<int>(v[1]), static_cast<int>(v[2]),
                 static_cast<int>(v[3])};
}

std::optional<GpuTelemetry> Nvml::telemetry(const std::string& pci_bus_id) const {
  nvmlDevice_t device = api_->device(pci_bus_id);
  unsigned int sm = 0;
  unsigned int memory = 0;
  unsigned int temperature = 0;
  unsigned int power_mw = 0;
  if (device == nullptr || api_->clock(device, NVML_CLOCK_SM, &sm) != NVML_SUCCESS ||
      api_->clock(device, NVML_CLOCK_MEM, &memory) != NVML_SUCCESS ||
      api_->temperature(device, NVML_TEMPERATURE_GPU, &temperature) != NVML_SUCCESS ||
      api_->power_mw(device, &power_mw) != NVML_SUCCESS) {
    return std::nullopt;
  }
  return GpuTelemetry{static_cast<int>(sm), static_cast<int>(memory), static_cast<int>(temperature),
                      power_mw / 1000.0};
}

namespace {

struct NamedRelation {
  PcieRelation relation;
  const char* name; // as nvidia-smi topo -m names it, and what it means
};

// Every relation NVML's topology levels name, in order of distance.
constexpr std::array<NamedRelation, 6> named_relations{{
    {PcieRelation::board, "BOARD (the same board)"},
    {PcieRelation::pix, "PIX (one PCIe switch)"},
    {PcieRelation::pxb, "PXB (several PCIe switches)"},
    {PcieRelation::phb, "PHB (the CPU's host bridge)"},
    {PcieRelation::node, "NODE (host bridges of one NUMA node)"},
    {PcieRelation::sys, "SYS (across NUMA nodes)"},
}};

} // namespace

std::optional<PcieRelation> pcie_relation_of(int level) {
  const auto* found = std::ranges::find_if(named_relations, [level](const NamedRelation& n) {
    return static_cast<int>(n.relation) == level;
  });
  return found == named_relations.end() ? std::nullopt : std::optional(found->relation);
}

std::string format_pcie_relation(PcieRelation relation) {
  const auto* found = std::ranges::find(named_relations, relation, &NamedRelation::relation);
  return found == named_relations.end() ? "unknown" : found->name;
}

std::optional<PcieRelation> Nvml::pcie_relation(const std::string& pci_bus_id,
                                                const std::string& peer_pci_bus_id) const {
  nvmlDevice_t device = api_->device(pci_bus_id);
  nvmlDevice_t peer_device = api_->device(peer_pci_bus_id);
  int level = -1;
  if (device == nullptr || peer_device == nullptr || api_->common_ancestor == nullptr ||
      api_->common_ancestor(device, peer_device, &level) != NVML_SUCCESS) {
    return std::nullopt;
  }
  return pcie_relation_of(level);
}

std::optional<NvlinkToPeer> Nvml::nvlink_to(const std::string& pci_bus_id,
                                            const std::string& peer_pci_bus_id) const {
  nvmlDevice_t device = api_->device(pci_bus_id);
  nvmlDevice_t peer_device = api_->device(peer_pci_bus_id);
  const auto peer = parse_bus_id(peer_pci_bus_id);
  if (device == nullptr || !peer || api_->nvlink_state == nullptr ||
      api_->nvlink_remote_pci == nullptr) {
    return std::nullopt;
  }
  // Links that end at an NVSwitch reach the peer when NVML says the two talk over NVLink (a
  // virtual machine hides the switch's far end: its remote PCI id reads all ones).
  int status = -1;
  const bool switched_to_peer =
      peer_device != nullptr && api_->p2p_status != nullptr &&
      api_->p2p_status(device, peer_device, NVML_P2P_CAPS_INDEX_NVLINK, &status) == NVML_SUCCESS &&
      status == NVML_P2P_STATUS_OK;
  NvlinkToPeer result;
  bool any_answer = false;
  for (unsigned int link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
    unsigned int active = 0;
    if (api_->nvlink_state(device, link, &active) != NVML_SUCCESS) {
      continue;
    }
    any_answer = true;
    nvmlPciInfo_t remote{};
    if (active == 0 || api_->nvlink_remote_pci(device, link, &remote) != NVML_SUCCESS) {
      continue;
    }
    const auto far_end = parse_bus_id(remote.busId);
    int type = -1;
    const bool to_switch = api_->nvlink_remote_type != nullptr &&
                           api_->nvlink_remote_type(device, link, &type) == NVML_SUCCESS &&
                           type == NVML_NVLINK_DEVICE_TYPE_SWITCH;
    if (to_switch && switched_to_peer) {
      result.through_switch = true;
    } else if (!far_end || *far_end != *peer) {
      continue;
    }
    ++result.links;
    unsigned int code = 0;
    if (result.version.empty() && api_->nvlink_version != nullptr &&
        api_->nvlink_version(device, link, &code) == NVML_SUCCESS) {
      result.version = nvlink_version_name(code);
    }
  }
  if (!any_answer) {
    return std::nullopt;
  }
  nvmlFieldValue_t speed{};
  speed.fieldId = NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON;
  if (result.links > 0 && api_->field_values != nullptr &&
      api_->field_values(device, 1, &speed) == NVML_SUCCESS && speed.nvmlReturn == NVML_SUCCESS) {
    result.link_speed_mbps = static_cast<int>(speed.value.uiVal);
  }
  return result;
}

std::string format_telemetry(const GpuTelemetry& t) {
  return fmt::format("{} MHz SM, {} MHz memory, {} C, {:.1f} W", t.sm_clock_mhz, t.memory_clock_mhz,
                     t.temperature_c, t.power_w);
}

} // namespace gpubench
