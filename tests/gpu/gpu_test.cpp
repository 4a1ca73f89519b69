#include "gpu_test.hpp"

#include "benchmark_json.hpp"
#include "cuda_error.hpp"
#include "process.hpp"
#include "registry.hpp"
#include "session.hpp"

#include <benchmark/benchmark.h>

#include <cmath>
#include <numeric>
#include <set>
#include <string>

namespace gpubench::testing {

std::optional<std::string> gpu_unavailable() {
  try {
    if (device_count() == 0) {
      return "no CUDA device: the driver reports none";
    }
  } catch (const CudaError& error) {
    return std::string("no CUDA device: ") + error.what();
  }
  return std::nullopt;
}

void GpuTest::SetUp() {
  GPUBENCH_REQUIRE_GPU();
  context_.emplace(device_at(0));
  stream_.emplace();
}

void GpuTest::TearDown() {
  stream_.reset();
  context_.reset();
}

namespace {

// Collects what the benchmarks report, in both Google Benchmark 1.7 (error_occurred) and 1.8+
// (skipped) vocabularies.
template <typename Run> void record_failure(const Run& run, BenchmarkOutcome& outcome) {
  if constexpr (requires { run.error_occurred; }) {
    outcome.failed = run.error_occurred;
    outcome.message = run.error_message;
  } else {
    outcome.failed = static_cast<bool>(run.skipped);
    outcome.message = run.skip_message;
  }
}

// The fields Google Benchmark's JSON reporter writes for a run beside its counters.
// clang-format off
const std::set<std::string> google_benchmark_fields = {
    "name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
    "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit",
    "aggregate_name", "aggregate_unit", "error_occurred", "error_message", "skipped",
    "skip_message", "label", "big_o", "rms", "complexity"};
// clang-format on

class CollectingReporter : public benchmark::BenchmarkReporter {
public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      BenchmarkOutcome outcome;
      outcome.name = run.benchmark_name();
      record_failure(run, outcome);
      outcome.iterations = run.iterations;
      if (run.iterations > 0) {
        outcome.seconds_per_iteration =
            run.real_accumulated_time / static_cast<double>(run.iterations);
      }
      for (const auto& [key, counter] : run.counters) {
        outcome.counters[key] = counter.value;
        if (google_benchmark_fields.contains(key)) {
          // The JSON would hold the key twice, and every reader of the file refuses it.
          outcome.failed = true;
          outcome.message += " counter '" + key + "' is a field Google Benchmark writes itself";
        }
      }
      outcomes.push_back(outcome);
    }
  }
  std::vector<BenchmarkOutcome> outcomes;
};

void initialize_once() {
  static const bool initialized = [] {
    std::vector<std::string> args{"gpubench_gpu_tests",
                                  "--benchmark_min_time=0" GPUBENCH_MIN_TIME_UNIT};
    std::vector<char*> argv;
    for (std::string& arg : args) {
      argv.push_back(arg.data());
    }
    int argc = static_cast<int>(argv.size());
    benchmark::Initialize(&argc, argv.data());
    // Every family, as main registers them, on device 0 (peer pairs over every device present),
    // copies at a size below a page, a page, and sizes where the copy engines' bulk path starts;
    // chases in the L1, the L2 and past it (over a link: the L1 and the L2); pins of a page, 64
    // a batch, and of 64 MiB, one a batch.
    const bench::FlagValues flags(
        std::map<std::string, std::string, std::less<>>{{"--sizes", "4,4K,1M,64M"},
                                                        {"--latency-sizes", "4K,1M,64M"},
                                                        {"--latency-link-sizes", "4K,1M"},
                                                        {"--pin-sizes", "4K,64M"}});
    std::vector<int> all(static_cast<std::size_t>(device_count()));
    std::iota(all.begin(), all.end(), 0);
    bench::Registry registry({0}, all);
    bench::register_families(registry, bench::configure_families(flags));
    bench::open_sessions(all);
    return true;
  }();
  static_cast<void>(initialized);
}

// Frees the benchmarks' session while the CUDA runtime is still up, not in static destruction.
class CloseSession : public ::testing::Environment {
public:
  void TearDown() override { bench::close_sessions(); }
};
const auto* const close_session_at_exit = ::testing::AddGlobalTestEnvironment(new CloseSession);

} // namespace

std::vector<BenchmarkOutcome> run_benchmarks(const std::string& filter) {
  initialize_once();
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter, filter);
  return reporter.outcomes;
}

void expect_all_verified(const std::vector<BenchmarkOutcome>& outcomes, std::size_t expected_count,
                         const char* counter) {
  EXPECT_EQ(outcomes.size(), expected_count);
  for (const BenchmarkOutcome& outcome : outcomes) {
    EXPECT_FALSE(outcome.failed) << outcome.name << ": " << outcome.message;
    if (!outcome.failed) {
      EXPECT_GT(outcome.iterations, 0) << outcome.name;
      ASSERT_TRUE(outcome.counters.contains(counter)) << outcome.name;
      EXPECT_GT(outcome.counters.at(counter), 0.0) << outcome.name;
      // What the harness's timed loop writes for every benchmark.
      ASSERT_TRUE(outcome.counters.contains("batches")) << outcome.name;
      EXPECT_GE(outcome.counters.at("batches"), 3.0) << outcome.name;
      ASSERT_TRUE(outcome.counters.contains("noise_pct")) << outcome.name;
      EXPECT_TRUE(std::isfinite(outcome.counters.at("noise_pct"))) << outcome.name;
      EXPECT_GE(outcome.counters.at("noise_pct"), 0.0) << outcome.name;
      ASSERT_TRUE(outcome.counters.contains("mean_over_median_pct")) << outcome.name;
      EXPECT_TRUE(std::isfinite(outcome.counters.at("mean_over_median_pct"))) << outcome.name;
      ASSERT_TRUE(outcome.counters.contains("host_timed")) << outcome.name;
      const double host_timed = outcome.counters.at("host_timed");
      EXPECT_TRUE(host_timed == 0.0 || host_timed == 1.0) << outcome.name;
      // Paced by the host: host-clock figures, loops the host drives and pageable copies, which
      // the driver stages.
      const bool gpu_loop = outcome.name.starts_with("launch/gpu_loop/");
      const bool host_paced =
          (outcome.name.starts_with("launch/") &&
           outcome.name.find("/gpu_gap/") == std::string::npos &&
           !outcome.name.starts_with("launch/graph_nodes/replay_gpu/") && !gpu_loop) ||
          outcome.name.starts_with("launch/gpu_loop/host_") ||
          outcome.name.find("/sync/") != std::string::npos ||
          outcome.name.find("/sync_paired/") != std::string::npos ||
          outcome.name.find("/pageable/") != std::string::npos;
      EXPECT_EQ(host_timed, host_paced ? 1.0 : 0.0) << outcome.name;
      // The SM clock a kernel read after the loop: in the range of every GPU CUDA runs on.
      ASSERT_TRUE(outcome.counters.contains("sm_clock_kernel_mhz")) << outcome.name;
      EXPECT_GE(outcome.counters.at("sm_clock_kernel_mhz"), 50.0) << outcome.name;
      EXPECT_LE(outcome.counters.at("sm_clock_kernel_mhz"), 2500.0) << outcome.name;
    }
  }
}

void expect_the_second_skipped(const std::vector<std::string>& flags, const std::string& skipped) {
  ScratchDir scratch;
  const std::string out = scratch.path("result.json");
  std::vector<std::string> argv{GPUBENCH_BINARY};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.push_back("--benchmark_out=" + out);
  const Finished run = run_process(argv);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const BenchmarkJson json = read_benchmark_json(out);
  ASSERT_TRUE(json.valid) << json.problem;
  ASSERT_EQ(json.benchmarks.size(), 2U);
  EXPECT_FALSE(json.benchmarks[0].error) << json.benchmarks[0].message;
  EXPECT_TRUE(json.benchmarks[1].message.starts_with(skipped)) << json.benchmarks[1].message;
}

void expect_gap_figures(const BenchmarkOutcome& outcome) {
  const auto& c = outcome.counters;
  ASSERT_TRUE(c.contains("gap_ns") && c.contains("gap_p99_ns") && c.contains("timer_step_ns"))
      << outcome.name;
  // Four gap batches of 256 launches: 255 gaps each.
  EXPECT_EQ(c.at("gaps"), 4.0 * 255.0) << outcome.name;
  EXPECT_GE(c.at("gap_ns"), 0.0) << outcome.name;
  EXPECT_GE(c.at("gap_p99_ns"), c.at("gap_ns")) << outcome.name;
  // The global timer steps in nanoseconds to a microsecond on every GPU CUDA documents it for.
  EXPECT_GT(c.at("timer_step_ns"), 0.0) << outcome.name;
  EXPECT_LE(c.at("timer_step_ns"), 1000.0) << outcome.name;
  // Queued behind the gate, the launches run back to back: a median gap of 100 µs would be a
  // GPU waiting on its host, not one launch following another.
  EXPECT_LT(c.at("gap_ns"), 100000.0) << outcome.name;
}

} // namespace gpubench::testing
