// launch/gpu_gap/<mechanism> and launch/<mechanism>/submit: programmatic dependent launch,
// clusters and cooperative launch beside the same launches without them. Each run verifies its
// launches (the GPU counted every launch and block, each block saw its parameters, cluster and
// grid as launched, and every launch of a gap batch stamped in the order its mechanism allows);
// this checks that a GPU which has a mechanism runs it, one which lacks it skips it with the
// reason, and the figures are whole and consistent.
#include "benchmark_json.hpp"
#include "context.hpp"
#include "device_info.hpp"
#include "driver_api.hpp"
#include "gpu_test.hpp"
#include "process.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

// What device 0 offers, as the driver says it: the benchmarks' own decision, taken again here.
struct Offered {
  bool sm90 = false;
  bool clusters = false;
  bool cooperative = false;
};

Offered offered() {
  const DeviceInfo device = query_device(0);
  const auto says = [](CUdevice_attribute which) {
    int value = 0;
    GPUBENCH_CU(cuDeviceGetAttribute, &value, which, device_at(0));
    return value != 0;
  };
  return {.sm90 = device.compute_capability_major >= 9,
          .clusters = says(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH),
          .cooperative = says(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)};
}

bool has(const std::string& name, const char* part) { return name.find(part) != std::string::npos; }

bool programmatic(const std::string& name) { return has(name, "/pdl") && !has(name, "_off/"); }

// Whether device 0 runs the mechanism `name` measures.
bool runs_here(const std::string& name, const Offered& gpu) {
  if (has(name, "/cluster")) {
    return gpu.sm90 && gpu.clusters;
  }
  if (has(name, "/cooperative/")) {
    return gpu.cooperative;
  }
  return !programmatic(name) || gpu.sm90;
}

// The outcomes device 0 runs; expects each of the others skipped with its reason.
std::vector<BenchmarkOutcome> those_run_here(const std::vector<BenchmarkOutcome>& outcomes) {
  const Offered gpu = offered();
  std::vector<BenchmarkOutcome> run;
  for (const BenchmarkOutcome& outcome : outcomes) {
    if (runs_here(outcome.name, gpu)) {
      run.push_back(outcome);
    } else {
      EXPECT_TRUE(outcome.failed && outcome.message.starts_with("skipped: "))
          << outcome.name << " runs on a GPU without its mechanism: " << outcome.message;
    }
  }
  return run;
}

TEST(LaunchMechanisms, EveryGapIsStampedInTheOrderItsMechanismAllows) {
  GPUBENCH_REQUIRE_GPU();
  const std::vector<BenchmarkOutcome> outcomes =
      run_benchmarks("^launch/gpu_gap/(grid|cluster|cooperative|pdl)[a-z0-9_]*/params:32/");
  // A wave plain, in clusters of 2 and 8, cooperative; a PDL chain plain and with three
  // triggers, in a stream and in a graph.
  ASSERT_EQ(outcomes.size(), 12U);
  const std::vector<BenchmarkOutcome> run = those_run_here(outcomes);
  expect_all_verified(run, run.size(), "gaps");
  for (const BenchmarkOutcome& outcome : run) {
    if (outcome.failed) {
      continue;
    }
    const auto& c = outcome.counters;
    for (const char* counter : {"gap_ns", "gap_p99_ns", "start_gap_ns", "wait_ns", "timer_step_ns",
                                "blocks", "body_ns"}) {
      ASSERT_TRUE(c.contains(counter)) << outcome.name << " has no " << counter;
    }
    ASSERT_NO_FATAL_FAILURE(expect_gap_figures(outcome));
    EXPECT_GE(c.at("wait_ns"), 0.0) << outcome.name;
    // A kernel's first start is at or before its first return from the wait, in every gap.
    EXPECT_LE(c.at("start_gap_ns"), c.at("gap_ns")) << outcome.name;
    if (!programmatic(outcome.name)) {
      // Stream order: no kernel starts before the last one ended.
      EXPECT_GE(c.at("start_gap_ns"), 0.0) << outcome.name;
    }
    if (has(outcome.name, "/pdl")) {
      EXPECT_EQ(c.at("blocks"), 1.0) << outcome.name;
      EXPECT_EQ(c.at("body_ns"), 4000.0) << outcome.name;
    } else {
      // One block per SM in whole clusters of 8.
      EXPECT_GE(c.at("blocks"), 8.0) << outcome.name;
      EXPECT_EQ(static_cast<long>(c.at("blocks")) % 8, 0) << outcome.name;
      EXPECT_EQ(c.at("body_ns"), 0.0) << outcome.name;
    }
  }
}

TEST(LaunchMechanisms, EverySubmitVerifiesItsLaunches) {
  GPUBENCH_REQUIRE_GPU();
  const std::vector<BenchmarkOutcome> outcomes =
      run_benchmarks("^launch/(grid|cluster|cooperative|pdl)[a-z0-9_]*/submit/params:32/");
  // The stream paths: the four waves and the four PDL chains.
  ASSERT_EQ(outcomes.size(), 8U);
  const std::vector<BenchmarkOutcome> run = those_run_here(outcomes);
  expect_all_verified(run, run.size(), "us_per_launch");
  for (const BenchmarkOutcome& outcome : run) {
    if (!outcome.failed) {
      // No launch takes a millisecond of the host's time to submit.
      EXPECT_LT(outcome.counters.at("us_per_launch"), 1000.0) << outcome.name;
    }
  }
}

// The file a script reads: a programmatic graph's gap and a cluster's submit, complete and
// without error where the GPU has them, skipped with the reason where it does not; the plain
// graph beside them runs on every GPU (a run whose every benchmark is skipped fails).
TEST(LaunchMechanisms, ResultFileHoldsThemAsRunOrSkipped) {
  GPUBENCH_REQUIRE_GPU();
  ScratchDir scratch;
  const std::string out = scratch.path("mechanisms.json");
  const Finished gpubench = run_process(
      {GPUBENCH_BINARY,
       "--benchmark_filter=^launch/(gpu_gap/pdl_graph_(off|early)|cluster8/submit)/params:32/",
       "--benchmark_min_time=0.01", "--benchmark_out=" + out});
  ASSERT_EQ(gpubench.exit_code, 0) << gpubench.err;
  const BenchmarkJson json = read_benchmark_json(out);
  ASSERT_TRUE(json.valid) << json.problem;
  ASSERT_EQ(json.benchmarks.size(), 3U);
  const Offered gpu = offered();
  for (const JsonBenchmark& benchmark : json.benchmarks) {
    if (runs_here(benchmark.name, gpu)) {
      EXPECT_FALSE(benchmark.error) << benchmark.name << ": " << benchmark.message;
      EXPECT_TRUE(benchmark.complete) << benchmark.name;
    } else {
      EXPECT_TRUE(benchmark.error && benchmark.message.starts_with("skipped: "))
          << benchmark.name << ": " << benchmark.message;
    }
  }
}

} // namespace
} // namespace gpubench::testing
