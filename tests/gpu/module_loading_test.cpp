// launch/module/<step> in the process's loading mode: every step says which mode it ran in, and a
// process started with CUDA_MODULE_LOADING says that mode in its result file, the steps verified
// (each step's kernel runs a saxpy checked against the CPU) in either.
#include "benchmark_json.hpp"
#include "gpu_test.hpp"
#include "module.hpp"
#include "process.hpp"

#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

TEST(ModuleLoading, EveryStepCountsItsProcesssMode) {
  GPUBENCH_REQUIRE_GPU();
  const std::vector<BenchmarkOutcome> outcomes = run_benchmarks("^launch/module/");
  const double lazy = module_loading() == ModuleLoading::lazy ? 1.0 : 0.0;
  for (const BenchmarkOutcome& outcome : outcomes) {
    ASSERT_TRUE(outcome.counters.contains("lazy_loading")) << outcome.name;
    EXPECT_EQ(outcome.counters.at("lazy_loading"), lazy) << outcome.name;
  }
}

// CUDA_MODULE_LOADING is read once, as the driver starts: a process of each mode.
TEST(ModuleLoading, AProcessOfEitherModeSaysItAndVerifiesItsSteps) {
  GPUBENCH_REQUIRE_GPU();
  for (const std::string mode : {"EAGER", "LAZY"}) {
    ScratchDir scratch;
    const std::string out = scratch.path("module.json");
    Process gpubench({GPUBENCH_BINARY,
                      "--benchmark_filter=^launch/module/(library_get_kernel|kernel_first_launch|"
                      "module_get_function)/",
                      "--benchmark_min_time=0.01", "--benchmark_out=" + out},
                     Stream::captured, Stream::captured, Group::shared,
                     Launch{.program = "", .environment = {"CUDA_MODULE_LOADING=" + mode}});
    const Finished finished = gpubench.wait();
    ASSERT_EQ(finished.exit_code, 0) << mode << ": " << finished.err;
    const BenchmarkJson json = read_benchmark_json(out);
    ASSERT_TRUE(json.valid) << json.problem;
    ASSERT_TRUE(json.context.contains("cuda_module_loading")) << mode;
    EXPECT_EQ(json.context.at("cuda_module_loading"), mode == "EAGER" ? "eager" : "lazy");
    ASSERT_EQ(json.benchmarks.size(), 3U) << mode;
    for (const JsonBenchmark& benchmark : json.benchmarks) {
      EXPECT_FALSE(benchmark.error) << mode << " " << benchmark.name << ": " << benchmark.message;
      EXPECT_TRUE(benchmark.complete) << mode << " " << benchmark.name;
    }
  }
}

} // namespace
} // namespace gpubench::testing
