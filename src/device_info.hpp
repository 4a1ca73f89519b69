#pragma once

#include <cuda.h>

#include <cstddef>
#include <string>

namespace gpubench {

// What the driver says about one device: the facts a result must carry to be comparable.
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  std::string uuid; // nvidia-smi's form, "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
  std::string pci_bus_id;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int sm_count = 0;
  std::size_t memory_bytes = 0;
  int memory_bus_width_bits = 0;
  int memory_clock_khz = 0;
  int l2_bytes = 0;
  int host_numa_node = -1; // -1 where the system has no NUMA or the driver does not say
};

[[nodiscard]] DeviceInfo query_device(int ordinal);

// "GPU-" and the 16 bytes in the 8-4-4-4-12 grouping nvidia-smi prints.
[[nodiscard]] std::string format_uuid(const CUuuid& uuid);

// CUDA encodes versions as 1000*major + 10*minor; "13.0".
[[nodiscard]] std::string format_cuda_version(int version);

[[nodiscard]] int driver_version();
[[nodiscard]] int runtime_version();

} // namespace gpubench
