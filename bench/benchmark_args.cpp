#include "benchmark_args.hpp"

#include <algorithm>

namespace gpubench::bench {
namespace {

// gpubench decides how long each benchmark measures: its timed loop runs inside one Google
// Benchmark call until the figure is known to 0.5% or a time cap is reached (bench/harness/
// stopping_rule.hpp). A minimum time of 0 lets Google Benchmark accept that first call instead
// of calling the whole body (setup, warm-up, timed loop, verification) again and again until
// its own minimum is measured. A --benchmark_min_time the user gives keeps Google Benchmark's
// meaning: at least that much measured time (or that many iterations) per benchmark.
constexpr const char* default_min_time_flag = "--benchmark_min_time=0" GPUBENCH_MIN_TIME_UNIT;

} // namespace

std::vector<char*> benchmark_argv(const Options& options, std::vector<std::string>& args) {
  std::erase_if(args, [first = args.data()](const std::string& arg) {
    return &arg != first &&
           (arg.starts_with("--benchmark_out") || arg.starts_with("--benchmark_filter"));
  });
  if (options.out_given && !options.list_only) {
    args.emplace_back("--benchmark_out=/dev/null");
  }
  // Every benchmark registered is selected. Not "." (Google Benchmark's reading of no filter),
  // for which it reserves its list anew for each registration: quadratic in the benchmarks.
  args.emplace_back("--benchmark_filter=^");
  if (std::none_of(args.begin() + 1, args.end(), [](const std::string& arg) {
        return arg.starts_with("--benchmark_min_time=");
      })) {
    args.emplace_back(default_min_time_flag);
  }
  std::vector<char*> argv;
  for (std::string& arg : args) {
    argv.push_back(arg.data());
  }
  argv.push_back(nullptr);
  return argv;
}

std::string filter_of(const std::vector<std::string>& args) {
  std::string filter;
  for (auto arg = args.begin() + 1; arg < args.end(); ++arg) {
    if (arg->starts_with("--benchmark_filter=")) {
      filter = arg->substr(std::string("--benchmark_filter=").size());
    }
  }
  return filter;
}

} // namespace gpubench::bench
