#include "gpu_health.hpp"

#include "json_text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <type_traits>

namespace gpubench {
namespace {
// The time `limits` holds for the policy `name`, where it holds one.
std::optional<std::uint64_t> limit_of(const ClockLimits& limits, const std::string& name) {
  const auto it = std::find_if(limits.begin(), limits.end(),
                               [&](const auto& entry) { return entry.first == name; });
  return it == limits.end() ? std::nullopt : std::optional(it->second);
}

constexpr const char* not_reported = "not reported";

template <typename T> std::string json_value(const std::optional<T>& value) {
  if (!value) {
    return fmt::format("\"{}\"", not_reported);
  }
  if constexpr (std::is_same_v<T, bool>) {
    return *value ? "true" : "false";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return fmt::format("\"{}\"", json_escape(*value));
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    std::vector<std::string> quoted;
    for (const std::string& item : *value) {
      quoted.push_back(fmt::format("\"{}\"", json_escape(item)));
    }
    return fmt::format("[{}]", fmt::join(quoted, ", "));
  } else if constexpr (std::is_same_v<T, std::vector<std::uint64_t>>) {
    return fmt::format("[{}]", fmt::join(*value, ", "));
  } else {
    return std::to_string(*value);
  }
}

template <typename T> std::string readable(const std::optional<T>& value) {
  if (!value) {
    return not_reported;
  }
  if constexpr (std::is_same_v<T, bool>) {
    return *value ? "yes" : "no";
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    return value->empty() ? std::string("none") : fmt::format("{}", fmt::join(*value, ", "));
  } else {
    return std::to_string(*value);
  }
}

std::string link(const std::optional<int>& generation, const std::optional<int>& width) {
  return fmt::format("Gen{} x{}", readable(generation), readable(width));
}

} // namespace

std::vector<std::string> clock_event_reason_names(std::uint64_t mask) {
  // nvmlClocksEventReason* bits, as nvml.h defines them.
  constexpr std::array<const char*, 9> names{"gpu_idle",
                                             "applications_clocks_setting",
                                             "sw_power_cap",
                                             "hw_slowdown",
                                             "sync_boost",
                                             "sw_thermal_slowdown",
                                             "hw_thermal_slowdown",
                                             "hw_power_brake_slowdown",
                                             "display_clock_setting"};
  std::vector<std::string> set;
  for (unsigned bit = 0; bit < 64; ++bit) {
    if ((mask >> bit & 1U) != 0) {
      set.emplace_back(bit < names.size() ? names[bit] : fmt::format("bit_{}", bit));
    }
  }
  return set;
}

std::optional<std::string> clock_limit_policy_name(int policy) {
  // nvmlPerfPolicyType_t's values, as nvml.h defines them.
  switch (policy) {
  case 0:
    return "power";
  case 1:
    return "thermal";
  case 2:
    return "sync_boost";
  case 3:
    return "board_limit";
  case 5:
    return "reliability";
  case 10:
    return "applications_clocks";
  case 11:
    return "below_base_clocks";
  default:
    return std::nullopt;
  }
}

// applications_clocks counts any limiter and low utilisation, below_base_clocks any time under
// the base clock; both grow while the GPU idles.
bool is_clock_limit_total(const std::string& name) {
  return name == "applications_clocks" || name == "below_base_clocks";
}

std::optional<std::vector<std::string>> clock_limits_that_grew(const GpuHealth& before,
                                                               const GpuHealth& after) {
  if (after.clock_limit_ns.empty()) {
    return std::nullopt;
  }
  std::vector<std::string> grew;
  for (const auto& [name, ns] : after.clock_limit_ns) {
    // A policy not read before the run counts from zero: its whole time is the run's.
    if (!is_clock_limit_total(name) && ns > limit_of(before.clock_limit_ns, name).value_or(0)) {
      grew.push_back(name);
    }
  }
  return grew;
}

std::uint64_t clock_limited_ns(const ClockLimits& before, const ClockLimits& after) {
  std::uint64_t longest = 0;
  for (const auto& [name, ns] : after) {
    if (is_clock_limit_total(name)) {
      continue;
    }
    // A policy not read before has no start to count from: it adds nothing.
    const auto was = limit_of(before, name);
    if (was && ns > *was) {
      longest = std::max(longest, ns - *was);
    }
  }
  return longest;
}

std::string format_health_json(const GpuHealth& h, const HealthDuringRun* during) {
  const std::optional<std::string> ecc_mode =
      h.ecc_enabled ? std::optional<std::string>(*h.ecc_enabled ? "enabled" : "disabled")
                    : std::nullopt;
  std::vector<std::pair<const char*, std::string>> fields{
      {"ecc_mode", json_value(ecc_mode)},
      {"ecc_volatile_corrected", json_value(h.ecc_volatile_corrected)},
      {"ecc_volatile_uncorrected", json_value(h.ecc_volatile_uncorrected)},
      {"ecc_aggregate_corrected", json_value(h.ecc_aggregate_corrected)},
      {"ecc_aggregate_uncorrected", json_value(h.ecc_aggregate_uncorrected)},
      {"retired_pages_sbe", json_value(h.retired_pages_sbe)},
      {"retired_pages_dbe", json_value(h.retired_pages_dbe)},
      {"retired_pages_pending", json_value(h.retired_pages_pending)},
      {"remapped_rows_correctable", json_value(h.remapped_rows_correctable)},
      {"remapped_rows_uncorrectable", json_value(h.remapped_rows_uncorrectable)},
      {"remap_pending", json_value(h.remap_pending)},
      {"remap_failed", json_value(h.remap_failed)},
      {"pcie_replay_count", json_value(h.pcie_replay_count)},
      {"pcie_link_gen_current", json_value(h.pcie_link_gen_current)},
      {"pcie_link_gen_max", json_value(h.pcie_link_gen_max)},
      {"pcie_link_width_current", json_value(h.pcie_link_width_current)},
      {"pcie_link_width_max", json_value(h.pcie_link_width_max)},
      {"nvlink_crc_errors", json_value(h.nvlink_crc_errors)},
      {"nvlink_replay_errors", json_value(h.nvlink_replay_errors)},
      {"nvlink_recovery_errors", json_value(h.nvlink_recovery_errors)},
      {"clock_event_reasons", json_value(h.clock_event_reasons)},
      {"read_at_unix_ms", json_value(h.read_at_unix_ms)},
  };
  if (during != nullptr) {
    fields.emplace_back("clock_event_reasons_during_run", json_value(during->clock_event_reasons));
    fields.emplace_back("xid_events", json_value(during->xid_events));
  }
  std::vector<std::string> members;
  for (const auto& [name, value] : fields) {
    members.push_back(fmt::format("\"{}\": {}", name, value));
  }
  return fmt::format("{{{}}}", fmt::join(members, ", "));
}

std::vector<std::string> format_health_lines(const GpuHealth& h) {
  const std::string ecc = h.ecc_enabled ? (*h.ecc_enabled ? "enabled" : "disabled") : not_reported;
  return {
      fmt::format("ECC {}; errors volatile {} corrected, {} uncorrected; aggregate {} corrected, "
                  "{} uncorrected",
                  ecc, readable(h.ecc_volatile_corrected), readable(h.ecc_volatile_uncorrected),
                  readable(h.ecc_aggregate_corrected), readable(h.ecc_aggregate_uncorrected)),
      fmt::format("retired pages: {} single-bit, {} double-bit, pending {}",
                  readable(h.retired_pages_sbe), readable(h.retired_pages_dbe),
                  readable(h.retired_pages_pending)),
      fmt::format("remapped rows: {} correctable, {} uncorrectable, pending {}, failed {}",
                  readable(h.remapped_rows_correctable), readable(h.remapped_rows_uncorrectable),
                  readable(h.remap_pending), readable(h.remap_failed)),
      fmt::format("PCIe: {} (max {}), {} replays",
                  link(h.pcie_link_gen_current, h.pcie_link_width_current),
                  link(h.pcie_link_gen_max, h.pcie_link_width_max), readable(h.pcie_replay_count)),
      fmt::format("NVLink errors over active links: {} CRC, {} replay, {} recovery",
                  readable(h.nvlink_crc_errors), readable(h.nvlink_replay_errors),
                  readable(h.nvlink_recovery_errors)),
      fmt::format("clock event reasons now: {}", readable(h.clock_event_reasons)),
  };
}

} // namespace gpubench
