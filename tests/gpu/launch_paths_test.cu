// Every launch path, measure and payload runs and proves each launch reached the kernel with
// its parameters intact (the benchmark's own verification).
#include "gpu_test.hpp"

namespace gpubench::testing {
namespace {

TEST(LaunchPaths, EveryPathMeasureAndPayloadVerifiesItsLaunches) {
  GPUBENCH_REQUIRE_GPU();
  // 7 paths x 3 measures x 5 payloads.
  expect_all_verified(run_benchmarks("^launch/(runtime|driver|graph)[a-z_]*/(submit|throughput|roundtrip)/"), 105,
                  "us_per_launch");
}

TEST(LaunchPaths, ModuleLoadingStepsProduceWorkingKernels) {
  GPUBENCH_REQUIRE_GPU();
  // cubin_load, ptx_jit, module_get_function, library_load, library_get_kernel,
  // kernel_get_function, first_launch, kernel_first_launch.
  expect_all_verified(run_benchmarks("^launch/module/"), 8, "us_per_launch");
}

// The empty kernel that does not count itself, from every path and measure: each call checked
// and a counting probe queued behind the timed launches ran.
TEST(LaunchPaths, EveryFloorPathAndMeasureCompletesItsLaunches) {
  GPUBENCH_REQUIRE_GPU();
  // 7 paths x 3 measures.
  expect_all_verified(run_benchmarks("^launch/floor/"), 21, "us_per_launch");
}

// 1024 and 2^20 run L2-flushed, each launch between its own events; 2^26 runs in gated batches.
// A run of one saxpy is checked on the device against the CPU's reference uploaded there; the
// graph variant's flushed batches apply 64 and are checked on the host.
TEST(SaxpyVariants, EveryVariantMatchesTheReference) {
  GPUBENCH_REQUIRE_GPU();
  // 8 variants x 3 sizes.
  expect_all_verified(run_benchmarks("^saxpy/[a-z0-9_]+/(1024|1048576|67108864)/"), 24, "pct_of_peak");
}

} // namespace
} // namespace gpubench::testing
