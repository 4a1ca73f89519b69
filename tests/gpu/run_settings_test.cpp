// A result file states Google Benchmark's settings the run measured with, which scripts judge
// runs alike by (scripts/gpubench_tools/reading/results.py's MEASUREMENT_SETTINGS); --info prints the devices
// whatever a filter would select.
#include "benchmark_json.hpp"
#include "gpu_test.hpp"
#include "process.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace gpubench::testing {
namespace {

TEST(RunSettings, TheContextStatesHowTheRunMeasured) {
  GPUBENCH_REQUIRE_GPU();
  ScratchDir scratch;
  const std::string out = scratch.path("settings.json");
  const std::string filter = "^copy/HtoD/pinned/async/";
  const Finished run = run_process(
      {GPUBENCH_BINARY, "--benchmark_filter=" + filter, "--sizes=4K", "--benchmark_min_time=0.01",
       "--benchmark_min_warmup_time=0.002", "--benchmark_enable_random_interleaving=yes",
       "--benchmark_repetitions=2", "--benchmark_out=" + out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const BenchmarkJson json = read_benchmark_json(out);
  ASSERT_TRUE(json.valid) << json.problem << "\n" << read_file(out);
  const std::map<std::string, std::string> expected{
      {"benchmark_min_time", "0.01s"},
      {"benchmark_min_warmup_time", "0.002s"},
      {"benchmark_enable_random_interleaving", "true"},
      {"benchmark_filter", filter},
      {"--sizes", "4K"}};
  for (const auto& [key, value] : expected) {
    ASSERT_EQ(json.context.count(key), 1U) << key;
    EXPECT_EQ(json.context.at(key), value) << key;
  }
}

TEST(RunSettings, InfoPrintsTheDevicesWhateverTheFilter) {
  GPUBENCH_REQUIRE_GPU();
  const Finished run =
      run_process({GPUBENCH_BINARY, "--info", "--benchmark_filter=^no_such_family/"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("  [0] "), std::string::npos) << run.out;
}

} // namespace
} // namespace gpubench::testing
