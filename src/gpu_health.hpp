#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpubench {

// Per clock-limiting policy (clock_limit_policy_name), the nanoseconds it has held the clocks
// down since the driver loaded (NVML's violation time).
using ClockLimits = std::vector<std::pair<std::string, std::uint64_t>>;

// A GPU's reliability counters and state at one moment, as NVML reports them: what DCGM's
// diagnostics check first. Each field is nullopt where NVML does not say (a VM hides some), so
// that nothing unknown reads as a zero.
struct GpuHealth {
  std::optional<bool> ecc_enabled;
  std::optional<std::uint64_t> ecc_volatile_corrected;
  std::optional<std::uint64_t> ecc_volatile_uncorrected;
  std::optional<std::uint64_t> ecc_aggregate_corrected;
  std::optional<std::uint64_t> ecc_aggregate_uncorrected;
  std::optional<std::uint64_t> retired_pages_sbe;
  std::optional<std::uint64_t> retired_pages_dbe;
  std::optional<bool> retired_pages_pending;
  std::optional<std::uint64_t> remapped_rows_correctable;
  std::optional<std::uint64_t> remapped_rows_uncorrectable;
  std::optional<bool> remap_pending;
  std::optional<bool> remap_failed;
  std::optional<std::uint64_t> pcie_replay_count;
  std::optional<int> pcie_link_gen_current;
  std::optional<int> pcie_link_gen_max;
  std::optional<int> pcie_link_width_current;
  std::optional<int> pcie_link_width_max;
  // Sums over the active NVLinks; nullopt where no active link reports the counter.
  std::optional<std::uint64_t> nvlink_crc_errors;
  std::optional<std::uint64_t> nvlink_replay_errors;
  std::optional<std::uint64_t> nvlink_recovery_errors;
  // The reasons holding the clocks down at this moment (clock_event_reason_names).
  std::optional<std::vector<std::string>> clock_event_reasons;
  // Per clock-limiting policy (clock_limit_policy_name), the nanoseconds it has held the clocks
  // down since the driver loaded. Not printed: the growth over a run is.
  ClockLimits clock_limit_ns;
  // When the counters were read (Unix time, ms): a counter's growth between two records is
  // judged as a rate, as DCGM judges NVLink CRC errors.
  std::optional<std::int64_t> read_at_unix_ms;
};

// What happened to a GPU during a run.
struct HealthDuringRun {
  // The policies that held the clocks down at some time during the run.
  std::optional<std::vector<std::string>> clock_event_reasons;
  // The Xid of each critical error NVML reported during the run.
  std::optional<std::vector<std::uint64_t>> xid_events;
};

// The names of the bits set in NVML's clock event reasons mask (nvmlClocksEventReason*),
// "gpu_idle", "sw_power_cap", ...; an unknown bit as "bit_N".
[[nodiscard]] std::vector<std::string> clock_event_reason_names(std::uint64_t mask);

// The name of an NVML performance policy (nvmlPerfPolicyType_t) whose violation time counts
// clock limiting, or nullopt for one that does not (low utilization grows whenever the GPU
// waits for the host, which every benchmark does between batches).
[[nodiscard]] std::optional<std::string> clock_limit_policy_name(int policy);

// Whether a policy of that name is one of NVML's totals (applications_clocks,
// below_base_clocks), which overlap the causes and name none: clock_limited_ns does not count
// them.
[[nodiscard]] bool is_clock_limit_total(const std::string& name);

// The causes (the policies clock_limited_ns counts) whose clock-limit time grew from `before` to
// `after`; nullopt where `after` reports none.
[[nodiscard]] std::optional<std::vector<std::string>> clock_limits_that_grew(
    const GpuHealth& before, const GpuHealth& after);

// The nanoseconds the clocks were held down from `before` to `after`: the longest growth of one
// cause (power, thermal, sync boost, board limit, reliability). Causes can act at once, so the
// longest is a floor of their union, never more than the time; NVML's totals
// (applications_clocks, which counts any limiter and low utilisation, and below_base_clocks)
// overlap the causes and are not counted.
[[nodiscard]] std::uint64_t clock_limited_ns(const ClockLimits& before, const ClockLimits& after);

// The health as one line of JSON with the fields the fleet report reads: numbers, true/false,
// lists, or "not reported". With `during`, also clock_event_reasons_during_run and xid_events.
[[nodiscard]] std::string format_health_json(const GpuHealth& health,
                                             const HealthDuringRun* during = nullptr);

// The health as readable lines for --info, without a trailing newline.
[[nodiscard]] std::vector<std::string> format_health_lines(const GpuHealth& health);

} // namespace gpubench
