#pragma once

// NVML's declarations as gpubench uses them, for the files that call NVML (nvml.cpp,
// nvml_health.cpp). nvml.h ships with the driver's development files, not with the toolkit on
// every machine, so the few types, values and entry points are declared here; values and
// layouts are nvml.h's.

#include "nvml.hpp"

#include <dlfcn.h>

namespace gpubench {

using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
inline constexpr nvmlReturn_t NVML_SUCCESS = 0;
inline constexpr int NVML_CLOCK_SM = 1;
inline constexpr int NVML_CLOCK_MEM = 2;
inline constexpr int NVML_TEMPERATURE_GPU = 0;
inline constexpr unsigned int NVML_NVLINK_MAX_LINKS = 18;
inline constexpr unsigned int NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON = 90;
inline constexpr int NVML_NVLINK_DEVICE_TYPE_SWITCH = 2;
inline constexpr int NVML_P2P_CAPS_INDEX_NVLINK = 2;
inline constexpr int NVML_P2P_STATUS_OK = 0;

struct nvmlPciInfo_t {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
};

union nvmlValue_t {
  double dVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  long long sllVal;
  int siVal;
  unsigned short usVal;
};

struct nvmlFieldValue_t {
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;
  long long latencyUsec;
  int valueType;
  nvmlReturn_t nvmlReturn;
  nvmlValue_t value;
};

inline constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_SIZE = 7;
inline constexpr nvmlReturn_t NVML_ERROR_TIMEOUT = 10;
inline constexpr int NVML_FEATURE_ENABLED = 1;
inline constexpr int NVML_MEMORY_ERROR_TYPE_CORRECTED = 0;
inline constexpr int NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1;
inline constexpr int NVML_VOLATILE_ECC = 0;
inline constexpr int NVML_AGGREGATE_ECC = 1;
inline constexpr int NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0;
inline constexpr int NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1;
inline constexpr int NVML_NVLINK_ERROR_DL_REPLAY = 0;
inline constexpr int NVML_NVLINK_ERROR_DL_RECOVERY = 1;
inline constexpr int NVML_NVLINK_ERROR_DL_CRC_FLIT = 2;
inline constexpr int NVML_NVLINK_ERROR_DL_CRC_DATA = 3;
inline constexpr unsigned long long nvmlEventTypeXidCriticalError = 0x8;
// nvmlPerfPolicyType_t: NVML_PERF_POLICY_POWER (0) to NVML_PERF_POLICY_TOTAL_BASE_CLOCKS (11).
inline constexpr int NVML_PERF_POLICY_COUNT = 12;

struct nvmlViolationTime_t {
  unsigned long long referenceTime;
  unsigned long long violationTime; // ns
};

using nvmlEventSet_t = struct nvmlEventSet_st*;
struct nvmlEventData_t {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData; // the Xid, for nvmlEventTypeXidCriticalError
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

struct Nvml::Api {
  void* library = nullptr;
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  nvmlReturn_t (*driver_version)(char*, unsigned int) = nullptr;
  nvmlReturn_t (*device_by_bus_id)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*power_mw)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*link_generation)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*link_width)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*max_link_generation)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*max_link_width)(nvmlDevice_t, unsigned int*) = nullptr;
  // Optional: bound where the library has them.
  nvmlReturn_t (*nvlink_state)(nvmlDevice_t, unsigned int, unsigned int*) = nullptr;
  nvmlReturn_t (*nvlink_version)(nvmlDevice_t, unsigned int, unsigned int*) = nullptr;
  nvmlReturn_t (*nvlink_remote_pci)(nvmlDevice_t, unsigned int, nvmlPciInfo_t*) = nullptr;
  nvmlReturn_t (*field_values)(nvmlDevice_t, int, nvmlFieldValue_t*) = nullptr;
  nvmlReturn_t (*nvlink_remote_type)(nvmlDevice_t, unsigned int, int*) = nullptr;
  nvmlReturn_t (*p2p_status)(nvmlDevice_t, nvmlDevice_t, int, int*) = nullptr;
  // nvmlGpuTopologyLevel_t, the PCIe relation of two GPUs (PcieRelation's values).
  nvmlReturn_t (*common_ancestor)(nvmlDevice_t, nvmlDevice_t, int*) = nullptr;
  // Health (nvml_health.cpp); optional too: a VM or an old driver may lack any of them.
  nvmlReturn_t (*ecc_mode)(nvmlDevice_t, int*, int*) = nullptr;
  nvmlReturn_t (*total_ecc_errors)(nvmlDevice_t, int, int, unsigned long long*) = nullptr;
  nvmlReturn_t (*retired_pages)(nvmlDevice_t, int, unsigned int*, unsigned long long*) = nullptr;
  nvmlReturn_t (*retired_pages_pending)(nvmlDevice_t, int*) = nullptr;
  nvmlReturn_t (*remapped_rows)(nvmlDevice_t, unsigned int*, unsigned int*, unsigned int*,
                                unsigned int*) = nullptr;
  nvmlReturn_t (*pcie_replay_counter)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*nvlink_error_counter)(nvmlDevice_t, unsigned int, int,
                                       unsigned long long*) = nullptr;
  nvmlReturn_t (*clock_event_reasons)(nvmlDevice_t, unsigned long long*) = nullptr;
  nvmlReturn_t (*violation_status)(nvmlDevice_t, int, nvmlViolationTime_t*) = nullptr;
  nvmlReturn_t (*total_energy_mj)(nvmlDevice_t, unsigned long long*) = nullptr;
  nvmlReturn_t (*event_set_create)(nvmlEventSet_t*) = nullptr;
  nvmlReturn_t (*register_events)(nvmlDevice_t, unsigned long long, nvmlEventSet_t) = nullptr;
  nvmlReturn_t (*event_set_wait)(nvmlEventSet_t, nvmlEventData_t*, unsigned int) = nullptr;
  nvmlReturn_t (*event_set_free)(nvmlEventSet_t) = nullptr;

  [[nodiscard]] nvmlDevice_t device(const std::string& bus_id) const {
    nvmlDevice_t device = nullptr;
    return device_by_bus_id(bus_id.c_str(), &device) == NVML_SUCCESS ? device : nullptr;
  }
};

// Binds the optional health entry points (nvml_health.cpp); a missing one stays null.
void bind_health_api(Nvml::Api& api);

// dlsym of `name` into `fn`; false where the library lacks it.
template <typename Fn> bool bind(void* library, Fn& fn, const char* name) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  return fn != nullptr;
}

} // namespace gpubench
