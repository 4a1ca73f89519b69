// What Google Benchmark makes of the flags gpubench hands it (initialize_benchmark): each test
// runs in a process of its own, as Google Benchmark's flags, context and registrations are the
// process's.
#include "benchmark_args.hpp"
#include "registry.hpp"

#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace gpubench::bench {
namespace {

class TimeUnits : public benchmark::BenchmarkReporter {
public:
  bool ReportContext(const Context& /*context*/) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      units.push_back(run.time_unit);
    }
  }
  std::vector<benchmark::TimeUnit> units;
};

// The time unit Google Benchmark reports for a benchmark gpubench registers, once gpubench has
// handed it `args` (after the program name). Its body fails at once: no GPU session is open.
benchmark::TimeUnit reported_unit(const std::vector<std::string>& args) {
  Options options = parse_options(args);
  initialize_benchmark(options);
  Registry registry({0}, {0});
  registry.add("time_unit_probe", [](Harness& /*harness*/, std::int64_t /*arg*/) {});
  TimeUnits reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter, "^time_unit_probe/");
  if (reporter.units.size() != 1) {
    std::cerr << reporter.units.size() << " runs reported\n";
    std::exit(3);
  }
  return reporter.units.front();
}

// The context Google Benchmark writes in the JSON, once gpubench has handed it `args` and the
// environment's flags.
std::string json_context(const std::vector<std::string>& args,
                         const std::vector<FlagFromEnvironment>& environment) {
  Options options = parse_options(args, {}, MinTimeSyntax::with_unit, environment);
  initialize_benchmark(options);
  std::ostringstream written;
  benchmark::JSONReporter json;
  json.SetOutputStream(&written);
  json.SetErrorStream(&written);
  json.ReportContext(benchmark::BenchmarkReporter::Context());
  return written.str();
}

// A child process that exits 0 where `holds` is true, and says what it saw otherwise.
void exit_with(bool holds, const std::string& seen) {
  if (!holds) {
    std::cerr << seen << '\n';
  }
  std::exit(holds ? 0 : 1);
}

// --benchmark_time_unit is Google Benchmark's default for a benchmark that sets none; gpubench's
// own default, microseconds, applies without it.
TEST(InitializeBenchmark, TimeUnitFlagIsTheReportedUnit) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::vector<std::pair<std::string, benchmark::TimeUnit>> cases{
      {"--benchmark_time_unit=ms", benchmark::kMillisecond},
      {"--benchmark_time_unit=ns", benchmark::kNanosecond},
      {"--benchmark_repetitions=1", benchmark::kMicrosecond}};
  for (const auto& [arg, unit] : cases) {
    EXPECT_EXIT(exit_with(reported_unit({"gpubench", arg}) == unit, "another unit"),
                ::testing::ExitedWithCode(0), "")
        << arg;
  }
}

// A --benchmark_context key given in the environment and again on the command line is written
// once, with the command line's value; the other keys of both are kept.
TEST(InitializeBenchmark, CommandLineContextWinsOverTheEnvironments) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto written = [] {
    return json_context({"gpubench", "--benchmark_context=run=b", "--benchmark_context=rack=7"},
                        {{"BENCHMARK_CONTEXT", "run=a,site=x"}});
  };
  EXPECT_EXIT(
      {
        const std::string json = written();
        exit_with(json.find("\"run\": \"b\"") != std::string::npos &&
                      json.find("\"run\": \"a\"") == std::string::npos &&
                      json.find("\"rack\": \"7\"") != std::string::npos &&
                      json.find("\"site\": \"x\"") != std::string::npos,
                  json);
      },
      ::testing::ExitedWithCode(0), "");
}

} // namespace
} // namespace gpubench::bench
