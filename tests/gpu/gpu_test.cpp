#include "gpu_test.hpp"

#include "benchmarks.hpp"
#include "cuda_error.hpp"
#include "session.hpp"

#include <benchmark/benchmark.h>

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

class CollectingReporter : public benchmark::BenchmarkReporter {
public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      BenchmarkOutcome outcome;
      outcome.name = run.benchmark_name();
      record_failure(run, outcome);
      outcome.iterations = run.iterations;
      for (const auto& [key, counter] : run.counters) {
        outcome.counters[key] = counter.value;
      }
      outcomes.push_back(outcome);
    }
  }
  std::vector<BenchmarkOutcome> outcomes;
};

void initialize_once() {
  static const bool initialized = [] {
    std::vector<std::string> args{"gpubench_gpu_tests",
                                  "--benchmark_min_time=0.01" GPUBENCH_MIN_TIME_UNIT};
    std::vector<char*> argv;
    for (std::string& arg : args) {
      argv.push_back(arg.data());
    }
    int argc = static_cast<int>(argv.size());
    benchmark::Initialize(&argc, argv.data());
    bench::register_saxpy();
    bench::register_launch();
    bench::register_copy({4, 4096, std::size_t{1} << 20U, std::size_t{64} << 20U});
    bench::open_session(0, L2Mode::cold);
    return true;
  }();
  static_cast<void>(initialized);
}

// Frees the benchmarks' session while the CUDA runtime is still up, not in static destruction.
class CloseSession : public ::testing::Environment {
public:
  void TearDown() override { bench::close_session(); }
};
const auto* const close_session_at_exit = ::testing::AddGlobalTestEnvironment(new CloseSession);

} // namespace

std::vector<BenchmarkOutcome> run_benchmarks(const std::string& filter) {
  initialize_once();
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter, filter);
  return reporter.outcomes;
}

} // namespace gpubench::testing
