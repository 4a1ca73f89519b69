#include "info.hpp"

#include "context.hpp"
#include "device_info.hpp"
#include "embedded_images.hpp"
#include "energy_counter.hpp"
#include "family.hpp"
#include "gpu_health.hpp"
#include "module.hpp"
#include "numa.hpp"
#include "nvml.hpp"
#include "sizes.hpp"
#include "topology.hpp"
#include "version.hpp"

#include <fmt/format.h>

#include <chrono>
#include <iterator>
#include <numeric>
#include <string>

namespace gpubench::bench {

std::string info_text(const std::vector<int>& devices) {
  // Built whole before any of it is written: a write that fails (a full disk, a closed stdout)
  // is the caller's one check, however far past stdio's buffer the text runs.
  fmt::memory_buffer text;
  const auto out = std::back_inserter(text);
  const int ordinal = devices.front();
  const CUdevice device = device_at(ordinal); // a bad --device fails before anything is printed
  const int count = device_count();
  fmt::format_to(out, "gpubench {}\ndriver supports CUDA {}, runtime CUDA {}\n{} CUDA device{}\n",
                 version, format_cuda_version(driver_version()),
                 format_cuda_version(runtime_version()), count, count == 1 ? "" : "s");
  const auto nvml = Nvml::open();
  for (int i = 0; i < count; ++i) {
    const DeviceInfo d = query_device(i);
    fmt::format_to(out, "  [{}] {}: compute capability {}.{}, {} SMs, {} memory, {} L2, {}\n", i,
                   d.name, d.compute_capability_major, d.compute_capability_minor, d.sm_count,
                   format_size(d.memory_bytes), format_size(static_cast<std::size_t>(d.l2_bytes)),
                   d.pci_bus_id);
    // Every field "not reported" without NVML, as in the JSON context.
    const std::optional<GpuHealth> health =
        nvml != nullptr ? nvml->health(d.pci_bus_id) : std::nullopt;
    for (const std::string& line : format_health_lines(health.value_or(GpuHealth{}))) {
      fmt::format_to(out, "      {}\n", line);
    }
    const auto energy =
        nvml == nullptr ? std::nullopt
                        : measure_energy_counter([&] { return nvml->energy_mj(d.pci_bus_id); },
                                                 [] { return std::chrono::steady_clock::now(); },
                                                 std::chrono::milliseconds(500));
    fmt::format_to(out, "      energy counter: {}\n", format_energy_counter(energy));
    fmt::format_to(out, "      host: NUMA node {}; farthest node with memory: {}\n",
                   d.host_numa_node < 0 ? "not reported" : std::to_string(d.host_numa_node),
                   describe_far_node(d.host_numa_node));
  }

  if (count > 1) {
    std::vector<int> all(static_cast<std::size_t>(count));
    std::iota(all.begin(), all.end(), 0);
    const std::vector<PeerLink> links = peer_links(all, nvml.get());
    fmt::format_to(out, "peer access, NVLinks and PCIe paths (cuDeviceGetP2PAttribute, NVML):\n{}",
                   format_peer_matrix(all, links));
    for (const PeerLink& link : links) {
      fmt::format_to(out, "  GPU{} -> GPU{}: {}\n", link.source, link.destination,
                     format_peer_link(link));
    }
  }

  const PrimaryContext context(device);
  fmt::format_to(out, "kernels, as loaded on device {} (cuFuncGetAttribute):\n", ordinal);
  const Module fatbin(saxpy_fatbin().data());
  fmt::format_to(out, "  {}\n",
                 format_kernel_attributes("saxpy [embedded fatbin, cuModuleLoadData]",
                                          kernel_attributes(fatbin.function("saxpy"))));
  const Module ptx(saxpy_ptx());
  fmt::format_to(out, "  {}\n",
                 format_kernel_attributes("saxpy [embedded PTX, JIT by the driver]",
                                          kernel_attributes(ptx.function("saxpy"))));
  for (const KernelSymbol& kernel : all_kernels()) {
    fmt::format_to(out, "  {}\n",
                   format_kernel_attributes(kernel.name + " [runtime]",
                                            kernel_attributes(driver_function(kernel.symbol))));
  }
  return fmt::to_string(text);
}

} // namespace gpubench::bench
