#include "benchmark_args.hpp"

#include "say.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace gpubench::bench {
namespace {

// Google Benchmark prints its usage and exits 0 where a format, time unit or color it reads is
// not one it knows; parse_options checks them first.
void usage_exit() {
  say("Google Benchmark cannot read the format, time unit or color given it");
  std::exit(2); // bad usage, as main exits for a UsageError
}

// The variables Google Benchmark 1.7 and 1.8 read as their flags' defaults (benchmark.cc's
// BM_DEFINE_* flags, each named as its flag upper-cased).
constexpr std::array<std::string_view, 17> benchmark_variables{
    "BENCHMARK_LIST_TESTS",
    "BENCHMARK_FILTER",
    "BENCHMARK_MIN_TIME",
    "BENCHMARK_MIN_WARMUP_TIME",
    "BENCHMARK_REPETITIONS",
    "BENCHMARK_ENABLE_RANDOM_INTERLEAVING",
    "BENCHMARK_REPORT_AGGREGATES_ONLY",
    "BENCHMARK_DISPLAY_AGGREGATES_ONLY",
    "BENCHMARK_FORMAT",
    "BENCHMARK_OUT_FORMAT",
    "BENCHMARK_OUT",
    "BENCHMARK_COLOR",
    "BENCHMARK_COUNTERS_TABULAR",
    "BENCHMARK_PERF_COUNTERS",
    "BENCHMARK_CONTEXT",
    "BENCHMARK_TIME_UNIT",
    "V"};

// Each variable's "NAME=value" entry as the process started with it (the first, as getenv
// finds it), or null.
std::array<const char*, benchmark_variables.size()> taken_variables{};

// Which of benchmark_variables `entry` ("NAME=value") sets, or benchmark_variables.size().
std::size_t variable_index(std::string_view entry) {
  for (std::size_t i = 0; i < benchmark_variables.size(); ++i) {
    const std::string_view name = benchmark_variables[i];
    if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=') {
      return i;
    }
  }
  return benchmark_variables.size();
}

// Takes Google Benchmark's variables out of the environment block, keeping them aside. It runs
// from .preinit_array, which the dynamic loader calls before any shared library's initializers
// (Google Benchmark's read the variables), on the block `environ` points to: no allocation, no
// library call.
void take_benchmark_variables(int /*argc*/, char** /*argv*/, char** envp) {
  char** kept = envp;
  for (char** entry = envp; *entry != nullptr; ++entry) {
    const std::size_t index = variable_index(*entry);
    if (index == benchmark_variables.size()) {
      *kept++ = *entry;
    } else if (taken_variables[index] == nullptr) {
      taken_variables[index] = *entry;
    }
  }
  *kept = nullptr;
}

[[gnu::used, gnu::section(".preinit_array")]] void (*const take_before_libraries_load)(
    int, char**, char**) = take_benchmark_variables;

} // namespace

void initialize_benchmark(Options& options) {
  std::vector<std::string>& args = options.benchmark_args;
  if (options.out_given && !options.list_only) {
    args.emplace_back("--benchmark_out=/dev/null");
  }
  if (!options.min_time) {
    args.push_back(fmt::format("--benchmark_min_time={}" GPUBENCH_MIN_TIME_UNIT,
                               default_min_time_seconds));
  }
  std::vector<char*> argv;
  for (std::string& arg : args) {
    argv.push_back(arg.data());
  }
  argv.push_back(nullptr);
  int argc = static_cast<int>(argv.size()) - 1;
  std::ostringstream said; // what Google Benchmark prints about a value it cannot read
  std::streambuf* const cerr = std::cerr.rdbuf(said.rdbuf());
  // Microseconds unless --benchmark_time_unit says otherwise, which Initialize applies.
  benchmark::SetDefaultTimeUnit(benchmark::kMicrosecond);
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

std::vector<FlagFromEnvironment> benchmark_flags_from_environment() {
  std::vector<FlagFromEnvironment> flags;
  for (std::size_t i = 0; i < benchmark_variables.size(); ++i) {
    if (taken_variables[i] != nullptr && benchmark_variables[i] != "V") {
      const std::string_view entry = taken_variables[i];
      const std::string_view name = benchmark_variables[i];
      flags.push_back({std::string(name), std::string(entry.substr(name.size() + 1))});
    }
  }
  return flags;
}

} // namespace gpubench::bench
