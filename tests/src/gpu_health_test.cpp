#include "gpu_health.hpp"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

constexpr const char* nothing_reported =
    "{\"ecc_mode\": \"not reported\", \"ecc_volatile_corrected\": \"not reported\", "
    "\"ecc_volatile_uncorrected\": \"not reported\", \"ecc_aggregate_corrected\": \"not "
    "reported\", \"ecc_aggregate_uncorrected\": \"not reported\", \"retired_pages_sbe\": \"not "
    "reported\", \"retired_pages_dbe\": \"not reported\", \"retired_pages_pending\": \"not "
    "reported\", \"remapped_rows_correctable\": \"not reported\", "
    "\"remapped_rows_uncorrectable\": \"not reported\", \"remap_pending\": \"not reported\", "
    "\"remap_failed\": \"not reported\", \"pcie_replay_count\": \"not reported\", "
    "\"pcie_link_gen_current\": \"not reported\", \"pcie_link_gen_max\": \"not reported\", "
    "\"pcie_link_width_current\": \"not reported\", \"pcie_link_width_max\": \"not reported\", "
    "\"nvlink_crc_errors\": \"not reported\", \"nvlink_replay_errors\": \"not reported\", "
    "\"nvlink_recovery_errors\": \"not reported\", \"clock_event_reasons\": \"not reported\", "
    "\"read_at_unix_ms\": \"not reported\"}";

TEST(GpuHealth, NothingReportedIsNeverAZero) {
  EXPECT_EQ(format_health_json(GpuHealth{}), nothing_reported);
  const HealthDuringRun during{};
  const std::string after = format_health_json(GpuHealth{}, &during);
  EXPECT_TRUE(after.ends_with("\"read_at_unix_ms\": \"not reported\", "
                              "\"clock_event_reasons_during_run\": \"not reported\", "
                              "\"xid_events\": \"not reported\"}"))
      << after;
  EXPECT_EQ(after.find(": 0"), std::string::npos) << after;
}

// The H200 of nvidia_smi_q: ECC on, no retired-page support (N/A), rows reported.
GpuHealth h200() {
  GpuHealth h;
  h.ecc_enabled = true;
  h.ecc_volatile_corrected = 0;
  h.ecc_volatile_uncorrected = 0;
  h.ecc_aggregate_corrected = 12;
  h.ecc_aggregate_uncorrected = 18446744073709551615ULL;
  h.remapped_rows_correctable = 1;
  h.remapped_rows_uncorrectable = 0;
  h.remap_pending = false;
  h.remap_failed = true;
  h.pcie_replay_count = 3;
  h.pcie_link_gen_current = 4;
  h.pcie_link_gen_max = 5;
  h.pcie_link_width_current = 16;
  h.pcie_link_width_max = 16;
  h.clock_event_reasons = std::vector<std::string>{"gpu_idle", "say \"hi\"\n"};
  h.read_at_unix_ms = 1796054400123;
  return h;
}

TEST(GpuHealth, NumbersBoolsListsAndEscapes) {
  const std::string json = format_health_json(h200());
  for (const char* field :
       {"\"ecc_mode\": \"enabled\"", "\"ecc_volatile_corrected\": 0",
        "\"ecc_aggregate_corrected\": 12",
        "\"ecc_aggregate_uncorrected\": 18446744073709551615",
        "\"retired_pages_sbe\": \"not reported\"", "\"retired_pages_pending\": \"not reported\"",
        "\"remapped_rows_correctable\": 1", "\"read_at_unix_ms\": 1796054400123", "\"remap_pending\": false", "\"remap_failed\": true",
        "\"pcie_replay_count\": 3", "\"pcie_link_gen_current\": 4", "\"pcie_link_gen_max\": 5",
        "\"pcie_link_width_current\": 16", "\"nvlink_crc_errors\": \"not reported\"",
        "\"clock_event_reasons\": [\"gpu_idle\", \"say \\\"hi\\\"\\u000a\"]"}) {
    EXPECT_NE(json.find(field), std::string::npos) << field << " not in " << json;
  }
  EXPECT_EQ(json.find("during_run"), std::string::npos);
  EXPECT_EQ(json.find('\n'), std::string::npos) << "one line";
  GpuHealth off;
  off.ecc_enabled = false;
  EXPECT_TRUE(format_health_json(off).starts_with("{\"ecc_mode\": \"disabled\", ")) << off.ecc_enabled.value();
}

TEST(GpuHealth, AfterTheRunListsWhatHappenedDuringIt) {
  const HealthDuringRun during{std::vector<std::string>{"power", "thermal"},
                               std::vector<std::uint64_t>{79, 48}};
  const std::string json = format_health_json(h200(), &during);
  EXPECT_TRUE(json.ends_with(
      "\"clock_event_reasons_during_run\": [\"power\", \"thermal\"], \"xid_events\": [79, 48]}"))
      << json;
  const HealthDuringRun quiet{std::vector<std::string>{}, std::vector<std::uint64_t>{}};
  EXPECT_TRUE(format_health_json(GpuHealth{}, &quiet)
                  .ends_with("\"clock_event_reasons_during_run\": [], \"xid_events\": []}"));
}

TEST(GpuHealth, ClockEventReasonBits) {
  EXPECT_TRUE(clock_event_reason_names(0).empty());
  EXPECT_EQ(clock_event_reason_names(0x1), std::vector<std::string>{"gpu_idle"});
  EXPECT_EQ(clock_event_reason_names(0x4 | 0x40 | 0x100),
            (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown",
                                      "display_clock_setting"}));
  EXPECT_EQ(clock_event_reason_names(1ULL << 40), std::vector<std::string>{"bit_40"});
}

TEST(GpuHealth, ClockLimitsThatGrewDuringTheRun) {
  GpuHealth before;
  before.clock_limit_ns = {{"power", 100}, {"thermal", 5}};
  GpuHealth after;
  EXPECT_EQ(clock_limits_that_grew(before, after), std::nullopt) << "none read: not reported";
  after.clock_limit_ns = {{"power", 100}, {"thermal", 6}, {"sync_boost", 1}};
  EXPECT_EQ(clock_limits_that_grew(before, after),
            (std::vector<std::string>{"thermal", "sync_boost"}));
  after.clock_limit_ns = {{"power", 100}};
  EXPECT_EQ(clock_limits_that_grew(before, after), std::vector<std::string>{});
  after.clock_limit_ns = {{"power", 100}, {"applications_clocks", 3'000'000'000},
                          {"below_base_clocks", 3'000'000'000}};
  EXPECT_EQ(clock_limits_that_grew(before, after), std::vector<std::string>{})
      << "NVML's totals grow while the GPU idles and name no cause";
  EXPECT_EQ(clock_limit_policy_name(0), "power");
  EXPECT_EQ(clock_limit_policy_name(4), std::nullopt) << "low utilization is no clock limit";
  EXPECT_EQ(clock_limit_policy_name(11), "below_base_clocks");
}

TEST(GpuHealth, OnlyNvmlsTwoTotalsAreNoCause) {
  std::vector<std::string> totals;
  for (int policy = 0; policy < 12; ++policy) {
    if (const auto name = clock_limit_policy_name(policy); name && is_clock_limit_total(*name)) {
      totals.push_back(*name);
    }
  }
  EXPECT_EQ(totals, (std::vector<std::string>{"applications_clocks", "below_base_clocks"}))
      << "the reads around a timed loop skip exactly these";
}

TEST(GpuHealth, ClockLimitedTimeIsTheLongestGrowthOfOneCause) {
  const ClockLimits before = {{"power", 100}, {"thermal", 5}, {"applications_clocks", 0},
                              {"below_base_clocks", 0}};
  EXPECT_EQ(clock_limited_ns(before, before), 0U);
  EXPECT_EQ(clock_limited_ns(before, {{"power", 1100}, {"thermal", 7}}), 1000U)
      << "causes held the clocks at once: their sum would count that time twice";
  EXPECT_EQ(clock_limited_ns(before, {{"power", 1100},
                                      {"applications_clocks", 5000},
                                      {"below_base_clocks", 900}}),
            1000U)
      << "NVML's totals overlap the causes (and count low utilisation)";
  EXPECT_EQ(clock_limited_ns(before, {{"power", 100}, {"sync_boost", 900}}), 0U)
      << "a policy not read before adds nothing";
  EXPECT_EQ(clock_limited_ns(before, {}), 0U);
}

TEST(GpuHealth, ReadableLinesForInfo) {
  const std::vector<std::string> lines = format_health_lines(h200());
  ASSERT_EQ(lines.size(), 6U);
  EXPECT_EQ(lines[0], "ECC enabled; errors volatile 0 corrected, 0 uncorrected; aggregate 12 "
                      "corrected, 18446744073709551615 uncorrected");
  EXPECT_EQ(lines[1], "retired pages: not reported single-bit, not reported double-bit, pending "
                      "not reported");
  EXPECT_EQ(lines[2], "remapped rows: 1 correctable, 0 uncorrectable, pending no, failed yes");
  EXPECT_EQ(lines[3], "PCIe: Gen4 x16 (max Gen5 x16), 3 replays");
  EXPECT_EQ(lines[4], "NVLink errors over active links: not reported CRC, not reported replay, "
                      "not reported recovery");
  EXPECT_EQ(lines[5], "clock event reasons now: gpu_idle, say \"hi\"\n");
  EXPECT_EQ(format_health_lines(GpuHealth{})[0],
            "ECC not reported; errors volatile not reported corrected, not reported uncorrected; "
            "aggregate not reported corrected, not reported uncorrected");
}

} // namespace
} // namespace gpubench
