#include "device_info.hpp"

#include "context.hpp"
#include "driver_api.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <array>

namespace gpubench {
namespace {

int attribute(CUdevice device, CUdevice_attribute which) {
  int value = 0;
  GPUBENCH_CU(cuDeviceGetAttribute, &value, which, device);
  return value;
}

} // namespace

std::string format_uuid(const CUuuid& uuid) {
  std::string text = "GPU-";
  for (std::size_t i = 0; i < sizeof(uuid.bytes); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) {
      text += '-';
    }
    text += fmt::format("{:02x}", static_cast<unsigned char>(uuid.bytes[i]));
  }
  return text;
}

std::string format_cuda_version(int version) {
  return fmt::format("{}.{}", version / 1000, version % 1000 / 10);
}

int driver_version() {
  int version = 0;
  GPUBENCH_CU(cuDriverGetVersion, &version);
  return version;
}

int runtime_version() {
  int version = 0;
  GPUBENCH_CUDART(cudaRuntimeGetVersion(&version));
  return version;
}

DeviceInfo query_device(int ordinal) {
  const CUdevice device = device_at(ordinal);
  DeviceInfo info;
  info.ordinal = ordinal;

  std::array<char, 256> name{};
  GPUBENCH_CU(cuDeviceGetName, name.data(), static_cast<int>(name.size()), device);
  info.name = name.data();

  CUuuid uuid{};
  GPUBENCH_CU(cuDeviceGetUuid, &uuid, device);
  info.uuid = format_uuid(uuid);

  std::array<char, 32> bus_id{};
  GPUBENCH_CU(cuDeviceGetPCIBusId, bus_id.data(), static_cast<int>(bus_id.size()), device);
  info.pci_bus_id = bus_id.data();

  info.compute_capability_major = attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info.compute_capability_minor = attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info.sm_count = attribute(device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  GPUBENCH_CU(cuDeviceTotalMem, &info.memory_bytes, device);
  info.memory_bus_width_bits = attribute(device, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  info.memory_clock_khz = attribute(device, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  info.l2_bytes = attribute(device, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  // Older drivers reject this attribute; "unknown" is then the honest answer, not an error.
  int numa = -1;
  if (driver_api().cuDeviceGetAttribute(&numa, CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, device) ==
      CUDA_SUCCESS) {
    info.host_numa_node = numa;
  }
  return info;
}

} // namespace gpubench
