#include "gpu_context.hpp"

#include "pci_link.hpp"
#include "context.hpp"
#include "numa.hpp"
#include "printable.hpp"
#include "session.hpp"
#include "version.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <array>
#include <cstdlib>

namespace gpubench::bench {

const char* build_type() { return GPUBENCH_BUILD_TYPE; }

std::string version_line() {
  return fmt::format("gpubench {} ({} build)\n", version, build_type());
}

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
      {"gpubench_build_type", build_type()},
      {"gpu_ordinal", std::to_string(device.ordinal)},
      {"gpu_pci_bus_id", device.pci_bus_id},
      {"l2_bytes", std::to_string(device.l2_bytes)},
  };
}

ContextEntries scheduler_context(const std::function<const char*(const char*)>& getenv) {
  ContextEntries entries;
  std::array<char, 256> host{};
  if (gethostname(host.data(), host.size() - 1) == 0) {
    entries.emplace_back("host_name", printable(host.data()));
  }
  // Slurm's job and node, and the node and pod a Kubernetes manifest passes in through the
  // downward API: where a fleet of result files came from.
  for (const auto& [key, variable] :
       {std::pair{"slurm_job_id", "SLURM_JOB_ID"}, std::pair{"slurm_node", "SLURMD_NODENAME"},
        std::pair{"slurm_proc_id", "SLURM_PROCID"}, std::pair{"k8s_node", "NODE_NAME"},
        std::pair{"k8s_pod", "POD_NAME"}}) {
    if (const char* value = getenv(variable); value != nullptr && *value != '\0') {
      entries.emplace_back(key, printable(value));
    }
  }
  return entries;
}

void add_gpu_context(const std::vector<int>& devices) {
  const Session& s = session(devices.front());
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
  benchmark::AddCustomContext("host_numa_node", s.numa_placement());
  benchmark::AddCustomContext("host_numa_far_node", describe_far_node(s.device().host_numa_node));
  benchmark::AddCustomContext("gpu_state_before", gpu_state());
  benchmark::AddCustomContext("gpu_count", std::to_string(device_count()));
  benchmark::AddCustomContext("selected_devices", fmt::format("{}", fmt::join(devices, ",")));
  // With several devices, the keys above describe the first; each has its own line too.
  if (devices.size() > 1) {
    for (const int ordinal : devices) {
      const DeviceInfo& d = session(ordinal).device();
      benchmark::AddCustomContext(fmt::format("device_{}", ordinal),
                                  fmt::format("{}, {}, {}", d.name, d.uuid, d.pci_bus_id));
      benchmark::AddCustomContext(fmt::format("device_{}_host_numa_node", ordinal),
                                  d.host_numa_node < 0 ? "not reported"
                                                       : std::to_string(d.host_numa_node));
    }
  }
  for (const auto& [key, value] : scheduler_context(std::getenv)) {
    benchmark::AddCustomContext(key, value);
  }
}

std::string gpu_state() {
  const auto telemetry = session().telemetry();
  return telemetry ? format_telemetry(*telemetry) : "unavailable";
}

} // namespace gpubench::bench
