// Each GPU's health (NVML) before and after the run in the JSON context, and in --info: every
// field the fleet report reads, each a value of its kind or "not reported", never a made-up zero.
#include "benchmark_json.hpp"
#include "gpu_test.hpp"
#include "context.hpp"
#include "device_info.hpp"
#include "process.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gpubench::testing {
namespace {

// Checks one health value as the fleet report reads it: exactly these fields, each a number, a
// bool, a list or "not reported" as its kind says. Prints what is wrong, nothing when right.
constexpr const char* check_health = R"(import json, sys
h = json.loads(sys.argv[1])
counts = ["ecc_volatile_corrected", "ecc_volatile_uncorrected", "ecc_aggregate_corrected",
          "ecc_aggregate_uncorrected", "retired_pages_sbe", "retired_pages_dbe",
          "remapped_rows_correctable", "remapped_rows_uncorrectable", "pcie_replay_count",
          "pcie_link_gen_current", "pcie_link_gen_max", "pcie_link_width_current",
          "pcie_link_width_max", "nvlink_crc_errors", "nvlink_replay_errors",
          "nvlink_recovery_errors"]
bools = ["retired_pages_pending", "remap_pending", "remap_failed"]
lists = {"clock_event_reasons": str}
if sys.argv[2] == "after":
    lists.update({"clock_event_reasons_during_run": str, "xid_events": int})
want = ["ecc_mode", "read_at_unix_ms"] + counts + bools + list(lists)
if sorted(h) != sorted(want):
    print("fields:", sorted(set(h) ^ set(want)))
ok = lambda v, kind: v == "not reported" or kind(v)
if not ok(h.get("ecc_mode"), lambda v: v in ("enabled", "disabled")): print("ecc_mode", h.get("ecc_mode"))
for k in counts:
    if not ok(h.get(k), lambda v: type(v) is int and v >= 0): print(k, h.get(k))
for k in bools:
    if not ok(h.get(k), lambda v: type(v) is bool): print(k, h.get(k))
for k, t in lists.items():
    if not ok(h.get(k), lambda v: type(v) is list and all(type(x) is t for x in v)): print(k, h.get(k))
if all(h[k] == "not reported" for k in counts): print("NVML reported nothing")
if not (type(h.get("read_at_unix_ms")) is int and h["read_at_unix_ms"] > 1_600_000_000_000):
    print("read_at_unix_ms", h.get("read_at_unix_ms"))
)";

void expect_health(const std::string& value, const std::string& when) {
  const Finished check = run_process({"/usr/bin/env", "python3", "-c", check_health, value, when});
  EXPECT_EQ(check.exit_code, 0) << check.err << "\n" << value;
  EXPECT_EQ(check.out, "") << value;
}

TEST(HealthContext, BeforeAndAfterTheRun) {
  GPUBENCH_REQUIRE_GPU();
  ScratchDir scratch;
  const std::string out = scratch.path("health.json");
  const Finished run =
      run_process({GPUBENCH_BINARY, "--benchmark_filter=^copy/HtoD/pinned/async/", "--sizes=4K",
                   "--benchmark_min_time=0.01", "--benchmark_out=" + out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const BenchmarkJson json = read_benchmark_json(out);
  ASSERT_TRUE(json.valid) << json.problem << "\n" << read_file(out);
  ASSERT_EQ(json.context.count("gpu_health_before"), 1U);
  ASSERT_EQ(json.context.count("gpu_health_after"), 1U);
  expect_health(json.context.at("gpu_health_before"), "before");
  expect_health(json.context.at("gpu_health_after"), "after");
  // One device selected: no per-device keys.
  EXPECT_EQ(json.context.count("device_0_health_before"), 0U);
}

TEST(HealthContext, EachDeviceWithSeveral) {
  GPUBENCH_REQUIRE_GPU();
  if (device_count() < 2) {
    GTEST_SKIP() << "per-device keys need two GPUs: " << device_count() << " found";
  }
  ScratchDir scratch;
  const std::string out = scratch.path("health2.json");
  const Finished run = run_process({GPUBENCH_BINARY, "--device=0,1",
                                    "--benchmark_filter=^copy/HtoD/pinned/async/", "--sizes=4K",
                                    "--benchmark_min_time=0.01", "--benchmark_out=" + out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const BenchmarkJson json = read_benchmark_json(out);
  ASSERT_TRUE(json.valid) << json.problem;
  for (const std::string device : {"0", "1"}) {
    for (const std::string when : {"before", "after"}) {
      const std::string key = "device_" + device + "_health_" + when;
      ASSERT_EQ(json.context.count(key), 1U) << key;
      expect_health(json.context.at(key), when);
    }
    const std::string numa = "device_" + device + "_host_numa_node";
    ASSERT_EQ(json.context.count(numa), 1U) << numa;
    const int node = query_device(std::stoi(device)).host_numa_node;
    EXPECT_EQ(json.context.at(numa), node < 0 ? "not reported" : std::to_string(node));
  }
  EXPECT_EQ(json.context.at("gpu_health_before"), json.context.at("device_0_health_before"));
}

TEST(HealthContext, InfoPrintsEachDevicesHealth) {
  GPUBENCH_REQUIRE_GPU();
  const Finished run = run_process({GPUBENCH_BINARY, "--info"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::size_t devices = [&] {
    std::size_t n = 0;
    for (const std::string& line : lines_of(run.out)) {
      n += line.starts_with("  [") ? 1 : 0;
    }
    return n;
  }();
  ASSERT_GE(devices, 1U) << run.out;
  for (const char* line : {"      ECC ", "      retired pages: ", "      remapped rows: ",
                           "      PCIe: Gen", "      NVLink errors over active links: ",
                           "      clock event reasons now: ", "      energy counter: ",
                           "      host: NUMA node "}) {
    std::size_t count = 0;
    for (auto at = run.out.find(line); at != std::string::npos; at = run.out.find(line, at + 1)) {
      ++count;
    }
    EXPECT_EQ(count, devices) << line << "\n" << run.out;
  }
}

} // namespace
} // namespace gpubench::testing
