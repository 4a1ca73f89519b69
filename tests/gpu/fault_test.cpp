// A sticky CUDA error mid-run, through gpubench_fault_probe: gpubench's main with one more
// family, first in the run, whose kernel writes to an illegal address. The benchmark that meets
// the fault fails with the error's name, every later one is skipped with one reason naming it,
// the JSON is valid and closed with run_status faulted, stderr ends with one line naming it, and
// the exit is 1.
#include "benchmark_json.hpp"
#include "gpu_test.hpp"
#include "process.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gpubench::testing {
namespace {

bool names_illegal_address(const std::string& text) {
  return text.find("CUDA_ERROR_ILLEGAL_ADDRESS") != std::string::npos ||
         text.find("cudaErrorIllegalAddress") != std::string::npos;
}

TEST(Fault, StickyErrorFailsOneBenchmarkAndSkipsTheRest) {
  GPUBENCH_REQUIRE_GPU();
  ScratchDir scratch;
  const std::string out = scratch.path("fault.json");
  const Finished run = run_process(
      {GPUBENCH_FAULT_PROBE, "--benchmark_filter=^(fault/|copy/(HtoD|DtoH)/pinned/async/)",
       "--sizes=4K,64K", "--benchmark_min_time=0.01", "--benchmark_out=" + out});

  EXPECT_FALSE(run.timed_out);
  EXPECT_EQ(run.signal, 0) << "ended by a signal:\n" << run.err;
  EXPECT_EQ(run.exit_code, 1) << run.err;
  const std::vector<std::string> lines = lines_of(run.err);
  ASSERT_FALSE(lines.empty());
  EXPECT_TRUE(
      lines.back().starts_with("gpubench: the GPU faulted and the rest of the run was skipped: "))
      << lines.back();
  EXPECT_TRUE(names_illegal_address(lines.back())) << lines.back();

  const BenchmarkJson json = read_benchmark_json(out);
  ASSERT_TRUE(json.valid) << json.problem << "\n" << read_file(out);
  EXPECT_EQ(json.context.count("gpu_state_after"), 1U) << "the file was not completed";
  EXPECT_EQ(json.context.count("interrupted"), 0U);
  EXPECT_EQ(json.context.at("run_status"), "faulted");
  // The fault, then HtoD and DtoH pinned async copies at 4 KiB and 64 KiB.
  ASSERT_EQ(json.benchmarks.size(), 5U);
  const JsonBenchmark& fault = json.benchmarks.front();
  EXPECT_EQ(fault.name, "fault/illegal_address/manual_time");
  EXPECT_TRUE(fault.error);
  EXPECT_TRUE(names_illegal_address(fault.message)) << fault.message;
  EXPECT_FALSE(fault.message.starts_with("skipped")) << "the faulting benchmark fails";
  for (std::size_t i = 1; i < json.benchmarks.size(); ++i) {
    const JsonBenchmark& later = json.benchmarks[i];
    EXPECT_TRUE(later.name.starts_with("copy/")) << later.name;
    EXPECT_TRUE(later.error) << later.name;
    EXPECT_EQ(later.message, "skipped: the GPU faulted in an earlier benchmark: " + fault.message)
        << later.name;
  }
}

} // namespace
} // namespace gpubench::testing
