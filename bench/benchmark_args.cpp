#include "benchmark_args.hpp"

#include "say.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace gpubench::bench {
namespace {

// gpubench decides how long each benchmark measures: its timed loop runs inside one Google
// Benchmark call until the figure is known to 0.5% or a time cap is reached (bench/harness/
// stopping_rule.hpp). A minimum time of 0 lets Google Benchmark accept that first call instead
// of calling the whole body (setup, warm-up, timed loop, verification) again and again until
// its own minimum is measured. A --benchmark_min_time the user gives keeps Google Benchmark's
// meaning: at least that much measured time (or that many iterations) per benchmark.
constexpr const char* default_min_time_flag = "--benchmark_min_time=0" GPUBENCH_MIN_TIME_UNIT;

// Google Benchmark prints its usage and exits 0 where a format, time unit or color it reads is
// not one it knows; parse_options checks the flags, but the BENCHMARK_* environment variables
// set them too.
void usage_exit() {
  say("Google Benchmark cannot read the format, time unit or color given it (a --benchmark_* "
      "flag or a BENCHMARK_* environment variable)");
  std::exit(2); // bad usage, as main exits for a UsageError
}

} // namespace

void initialize_benchmark(Options& options) {
  std::vector<std::string>& args = options.benchmark_args;
  if (options.out_given && !options.list_only) {
    args.emplace_back("--benchmark_out=/dev/null");
  }
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
  int argc = static_cast<int>(argv.size()) - 1;
  std::ostringstream said; // what Google Benchmark prints about a value it cannot read
  std::streambuf* const cerr = std::cerr.rdbuf(said.rdbuf());
  benchmark::Initialize(&argc, argv.data(), usage_exit);
  std::cerr.rdbuf(cerr);
  if (argc > 1) {
    std::string reason = said.str();
    std::replace(reason.begin(), reason.end(), '\n', ' ');
    while (reason.ends_with(' ')) {
      reason.pop_back();
    }
    const std::string unread =
        fmt::format("'{}'", fmt::join(argv.begin() + 1, argv.begin() + argc, " "));
    throw UsageError(
        reason.empty()
            ? fmt::format("{}: an unknown flag, or its value is missing or malformed (see --help)",
                          unread)
            : fmt::format("{}: {}", unread, reason));
  }
}

} // namespace gpubench::bench
