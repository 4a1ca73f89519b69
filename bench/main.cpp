#include "benchmarks.hpp"
#include "context.hpp"
#include "cuda_error.hpp"
#include "failures.hpp"
#include "gpu_context.hpp"
#include "info.hpp"
#include "json_context.hpp"
#include "options.hpp"
#include "session.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int exit_failure = 1;
constexpr int exit_usage = 2;

// Google Benchmark's default of 0.5 s per benchmark would make the full suite (hundreds of
// copy sizes, each timed in batches plus verified) take many minutes; 0.05 s of measured time
// still holds hundreds of batches at small sizes and several 1 GiB copies; repetitions, not
// longer runs, give the spread (0.5 s for the host-timed benchmarks was tried on the H200 and made
// their spread larger, not smaller: results/h200/stability/). --benchmark_min_time overrides it.
constexpr const char* default_min_time_flag = "--benchmark_min_time=0.05" GPUBENCH_MIN_TIME_UNIT;

[[noreturn]] void die(int status, const std::string& message) {
  fmt::print(stderr, "gpubench: {}\n", message);
  std::exit(status);
}

std::vector<char*> benchmark_argv(std::vector<std::string>& args) {
  const bool has_min_time = std::any_of(args.begin(), args.end(), [](const std::string& arg) {
    return arg.starts_with("--benchmark_min_time=");
  });
  if (!has_min_time) {
    args.emplace_back(default_min_time_flag);
  }
  std::vector<char*> argv;
  for (std::string& arg : args) {
    argv.push_back(arg.data());
  }
  argv.push_back(nullptr);
  return argv;
}

// The one check that turns "no driver" and "no device" into a single clear line.
void require_device() {
  int count = 0;
  try {
    count = gpubench::device_count();
  } catch (const gpubench::CudaError& error) {
    die(exit_failure, fmt::format("no CUDA device: {}", error.what()));
  }
  if (count == 0) {
    die(exit_failure, "no CUDA device: the driver reports none");
  }
}

int run(gpubench::Options& options) {
  namespace bench = gpubench::bench;
  if (options.help) {
    fmt::print("{}\n", gpubench::usage());
    options.benchmark_args.emplace_back("--help");
  }
  // The PTX-load benchmark must measure the driver's JIT, not a hit in its on-disk cache.
  setenv("CUDA_CACHE_DISABLE", "1", 1);

  bench::register_saxpy();
  bench::register_launch();
  bench::register_copy(options.sizes.value_or(bench::default_copy_sizes()));

  std::vector<char*> argv = benchmark_argv(options.benchmark_args);
  int argc = static_cast<int>(argv.size()) - 1;
  benchmark::Initialize(&argc, argv.data());
  if (benchmark::ReportUnrecognizedArguments(argc, argv.data())) {
    return exit_usage;
  }
  if (!options.list_only) {
    require_device();
  }
  if (options.info) {
    bench::print_info(stdout, options.device);
    return 0;
  }
  if (!options.list_only) {
    bench::open_session(options.device, options.l2);
    bench::add_gpu_context();
  }
  const std::size_t matched = benchmark::RunSpecifiedBenchmarks();
  if (!options.list_only) {
    if (const std::string out = bench::json_out_file(options.benchmark_args); !out.empty()) {
      bench::add_json_context(out, "gpu_state_after", bench::gpu_state());
    }
  }
  bench::close_session();
  benchmark::Shutdown();
  // Google Benchmark has already said when the filter matched nothing; that is no success.
  return matched > 0 && bench::failure_count() == 0 ? 0 : exit_failure;
}

} // namespace

int main(int argc, char** argv) {
  gpubench::Options options;
  try {
    options = gpubench::parse_options(std::vector<std::string>(argv, argv + argc));
  } catch (const gpubench::UsageError& error) {
    die(exit_usage, error.what());
  }
  try {
    return run(options);
  } catch (const std::out_of_range& error) {
    die(exit_failure, fmt::format("--device={}: {}", options.device, error.what()));
  } catch (const std::exception& error) {
    die(exit_failure, error.what());
  }
}
