#include "gpu_context.hpp"

#include "pci_link.hpp"
#include "session.hpp"
#include "version.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

namespace gpubench::bench {

ContextEntries gpu_context(const DeviceInfo& device, const std::string& driver_release,
                           int driver_version, int runtime_version, const std::string& pcie_link) {
  return {
      {"gpu_name", device.name},
      {"gpu_uuid", device.uuid},
      {"compute_capability",
       fmt::format("{}.{}", device.compute_capability_major, device.compute_capability_minor)},
      {"sm_count", std::to_string(device.sm_count)},
      {"gpu_memory_bytes", std::to_string(device.memory_bytes)},
      {"memory_bus_width_bits", std::to_string(device.memory_bus_width_bits)},
      {"memory_clock_khz", std::to_string(device.memory_clock_khz)},
      {"pcie_link", pcie_link},
      {"driver_version", driver_release},
      {"driver_cuda_version", format_cuda_version(driver_version)},
      {"cuda_runtime_version", format_cuda_version(runtime_version)},
      {"gpubench_version", version},
      {"gpu_ordinal", std::to_string(device.ordinal)},
      {"gpu_pci_bus_id", device.pci_bus_id},
      {"l2_bytes", std::to_string(device.l2_bytes)},
  };
}

void add_gpu_context() {
  const Session& s = session();
  const std::string& bus_id = s.device().pci_bus_id;
  const Nvml* nvml = s.nvml();
  // NVML knows the link even inside VMs whose sysfs shows an emulated bridge; sysfs otherwise.
  const auto nvml_link = nvml != nullptr ? nvml->pci_link(bus_id) : std::nullopt;
  const auto link = format_pci_link(nvml_link ? *nvml_link : read_pci_link(bus_id));
  // The kernel driver's release ("580.159.04") is what users compare; without NVML only the
  // CUDA version the driver supports is known.
  const auto release = nvml != nullptr ? nvml->driver_version() : std::nullopt;
  const int cuda_version = driver_version();
  for (const auto& [key, value] :
       gpu_context(s.device(), release.value_or(format_cuda_version(cuda_version)), cuda_version,
                   runtime_version(), link)) {
    benchmark::AddCustomContext(key, value);
  }
  benchmark::AddCustomContext("saxpy_l2", to_string(s.l2()));
  benchmark::AddCustomContext("host_numa_node", s.numa_placement());
  benchmark::AddCustomContext("gpu_state_before", gpu_state());
}

std::string gpu_state() {
  const auto telemetry = session().telemetry();
  return telemetry ? format_telemetry(*telemetry) : "unavailable";
}

} // namespace gpubench::bench
