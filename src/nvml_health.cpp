#include "nvml_api.hpp"

#include <array>
#include <chrono>
#include <initializer_list>

namespace gpubench {
namespace {
// Per clock-limiting policy NVML reports (the causes alone with `causes_only`: not NVML's
// totals), the nanoseconds it has held the clocks down. Each is a call into the driver of
// 0.6-0.75 ms on an H100, so a read around a timed loop takes the causes alone. One
// nvmlDeviceGetFieldValues call gives the same times at the cost of one, but from a sample
// that lagged the live counter by 20-90 ms on an H100: too old for a loop of milliseconds.
ClockLimits clock_limits(const Nvml::Api& api, nvmlDevice_t device, bool causes_only) {
  ClockLimits limits;
  for (int policy = 0; policy < NVML_PERF_POLICY_COUNT && api.violation_status != nullptr;
       ++policy) {
    const auto name = clock_limit_policy_name(policy);
    nvmlViolationTime_t time{};
    if (name && !(causes_only && is_clock_limit_total(*name)) &&
        api.violation_status(device, policy, &time) == NVML_SUCCESS) {
      limits.emplace_back(*name, time.violationTime);
    }
  }
  return limits;
}

std::optional<std::uint64_t> ecc_count(const Nvml::Api& api, nvmlDevice_t device, int error,
                                       int counter) {
  unsigned long long count = 0;
  if (api.total_ecc_errors == nullptr ||
      api.total_ecc_errors(device, error, counter, &count) != NVML_SUCCESS) {
    return std::nullopt;
  }
  return count;
}

// nvmlDeviceGetRetiredPages with no room for addresses: the count alone, which NVML gives with
// NVML_ERROR_INSUFFICIENT_SIZE where there are pages.
std::optional<std::uint64_t> retired_pages(const Nvml::Api& api, nvmlDevice_t device, int cause) {
  unsigned int count = 0;
  if (api.retired_pages == nullptr) {
    return std::nullopt;
  }
  const nvmlReturn_t result = api.retired_pages(device, cause, &count, nullptr);
  if (result != NVML_SUCCESS && result != NVML_ERROR_INSUFFICIENT_SIZE) {
    return std::nullopt;
  }
  return count;
}

std::optional<int> unsigned_value(nvmlReturn_t (*query)(nvmlDevice_t, unsigned int*),
                                  nvmlDevice_t device) {
  unsigned int value = 0;
  if (query == nullptr || query(device, &value) != NVML_SUCCESS) {
    return std::nullopt;
  }
  return static_cast<int>(value);
}

// One NVLink error counter summed over the active links; nullopt where no active link reports
// it (no NVLink, or NVML hides the counters).
std::optional<std::uint64_t> nvlink_errors(const Nvml::Api& api, nvmlDevice_t device,
                                           std::initializer_list<int> counters) {
  if (api.nvlink_state == nullptr || api.nvlink_error_counter == nullptr) {
    return std::nullopt;
  }
  std::optional<std::uint64_t> sum;
  for (unsigned int link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
    unsigned int active = 0;
    if (api.nvlink_state(device, link, &active) != NVML_SUCCESS || active == 0) {
      continue;
    }
    for (const int counter : counters) {
      unsigned long long value = 0;
      if (api.nvlink_error_counter(device, link, counter, &value) == NVML_SUCCESS) {
        sum = sum.value_or(0) + value;
      }
    }
  }
  return sum;
}

} // namespace

void bind_health_api(Nvml::Api& api) {
  void* lib = api.library;
  bind(lib, api.ecc_mode, "nvmlDeviceGetEccMode");
  bind(lib, api.total_ecc_errors, "nvmlDeviceGetTotalEccErrors");
  bind(lib, api.retired_pages, "nvmlDeviceGetRetiredPages");
  bind(lib, api.retired_pages_pending, "nvmlDeviceGetRetiredPagesPendingStatus");
  bind(lib, api.remapped_rows, "nvmlDeviceGetRemappedRows");
  bind(lib, api.pcie_replay_counter, "nvmlDeviceGetPcieReplayCounter");
  bind(lib, api.nvlink_error_counter, "nvmlDeviceGetNvLinkErrorCounter");
  // The same mask under its newer name (drivers from 535 on) and its older one.
  if (!bind(lib, api.clock_event_reasons, "nvmlDeviceGetCurrentClocksEventReasons")) {
    bind(lib, api.clock_event_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  }
  bind(lib, api.violation_status, "nvmlDeviceGetViolationStatus");
  bind(lib, api.total_energy_mj, "nvmlDeviceGetTotalEnergyConsumption");
  bind(lib, api.event_set_create, "nvmlEventSetCreate");
  bind(lib, api.register_events, "nvmlDeviceRegisterEvents");
  bind(lib, api.event_set_wait, "nvmlEventSetWait_v2");
  bind(lib, api.event_set_free, "nvmlEventSetFree");
}

std::optional<GpuHealth> Nvml::health(const std::string& pci_bus_id) const {
  const Api& api = *api_;
  nvmlDevice_t device = api.device(pci_bus_id);
  if (device == nullptr) {
    return std::nullopt;
  }
  GpuHealth h;
  h.read_at_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  int ecc_current = 0;
  int ecc_pending = 0;
  if (api.ecc_mode != nullptr &&
      api.ecc_mode(device, &ecc_current, &ecc_pending) == NVML_SUCCESS) {
    h.ecc_enabled = ecc_current == NVML_FEATURE_ENABLED;
  }
  h.ecc_volatile_corrected =
      ecc_count(api, device, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC);
  h.ecc_volatile_uncorrected =
      ecc_count(api, device, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC);
  h.ecc_aggregate_corrected =
      ecc_count(api, device, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC);
  h.ecc_aggregate_uncorrected =
      ecc_count(api, device, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC);
  h.retired_pages_sbe =
      retired_pages(api, device, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS);
  h.retired_pages_dbe = retired_pages(api, device, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR);
  int pages_pending = 0;
  if (api.retired_pages_pending != nullptr &&
      api.retired_pages_pending(device, &pages_pending) == NVML_SUCCESS) {
    h.retired_pages_pending = pages_pending == NVML_FEATURE_ENABLED;
  }
  std::array<unsigned int, 4> rows{};
  if (api.remapped_rows != nullptr &&
      api.remapped_rows(device, &rows[0], &rows[1], &rows[2], &rows[3]) == NVML_SUCCESS) {
    h.remapped_rows_correctable = rows[0];
    h.remapped_rows_uncorrectable = rows[1];
    h.remap_pending = rows[2] != 0;
    h.remap_failed = rows[3] != 0;
  }
  if (const auto replays = unsigned_value(api.pcie_replay_counter, device)) {
    h.pcie_replay_count = static_cast<std::uint64_t>(static_cast<unsigned int>(*replays));
  }
  h.pcie_link_gen_current = unsigned_value(api.link_generation, device);
  h.pcie_link_gen_max = unsigned_value(api.max_link_generation, device);
  h.pcie_link_width_current = unsigned_value(api.link_width, device);
  h.pcie_link_width_max = unsigned_value(api.max_link_width, device);
  h.nvlink_crc_errors =
      nvlink_errors(api, device, {NVML_NVLINK_ERROR_DL_CRC_FLIT, NVML_NVLINK_ERROR_DL_CRC_DATA});
  h.nvlink_replay_errors = nvlink_errors(api, device, {NVML_NVLINK_ERROR_DL_REPLAY});
  h.nvlink_recovery_errors = nvlink_errors(api, device, {NVML_NVLINK_ERROR_DL_RECOVERY});
  unsigned long long reasons = 0;
  if (api.clock_event_reasons != nullptr &&
      api.clock_event_reasons(device, &reasons) == NVML_SUCCESS) {
    h.clock_event_reasons = clock_event_reason_names(reasons);
  }
  h.clock_limit_ns = clock_limits(api, device, false);
  return h;
}

std::optional<std::uint64_t> Nvml::energy_mj(const std::string& pci_bus_id) const {
  nvmlDevice_t device = api_->device(pci_bus_id);
  unsigned long long mj = 0;
  if (device == nullptr || api_->total_energy_mj == nullptr ||
      api_->total_energy_mj(device, &mj) != NVML_SUCCESS) {
    return std::nullopt;
  }
  return mj;
}

std::optional<ClockLimits> Nvml::clock_limit_ns(const std::string& pci_bus_id) const {
  nvmlDevice_t device = api_->device(pci_bus_id);
  if (device == nullptr || api_->violation_status == nullptr) {
    return std::nullopt;
  }
  return clock_limits(*api_, device, true);
}

Nvml::XidEvents::XidEvents(const Nvml& nvml, const std::string& pci_bus_id)
    : api_(nvml.api_.get()) {
  nvmlDevice_t device = api_->device(pci_bus_id);
  if (device == nullptr || api_->event_set_create == nullptr ||
      api_->register_events == nullptr || api_->event_set_wait == nullptr ||
      api_->event_set_free == nullptr || api_->event_set_create(&set_) != NVML_SUCCESS) {
    set_ = nullptr;
    return;
  }
  if (api_->register_events(device, nvmlEventTypeXidCriticalError, set_) != NVML_SUCCESS) {
    api_->event_set_free(set_);
    set_ = nullptr;
  }
}

Nvml::XidEvents::~XidEvents() {
  if (set_ != nullptr) {
    api_->event_set_free(set_);
  }
}

std::optional<std::vector<std::uint64_t>> Nvml::XidEvents::drain() {
  if (set_ == nullptr) {
    return std::nullopt;
  }
  std::vector<std::uint64_t> xids;
  nvmlEventData_t event{};
  while (api_->event_set_wait(set_, &event, 0) == NVML_SUCCESS) {
    if ((event.eventType & nvmlEventTypeXidCriticalError) != 0) {
      xids.push_back(event.eventData);
    }
  }
  return xids;
}

} // namespace gpubench
