// The harness must not inflate what it measures: the submit cost of <<<>>> and cuLaunchKernel
// at 0 parameter bytes, timed by a bare loop written without Google Benchmark, must agree
// within 5% with gpubench's launch/<path>/submit/params:0.
#include "driver_api.hpp"
#include "gpu_test.hpp"
#include "launch_probe.cuh"
#include "median.hpp"
#include "family.hpp"
#include "launch_counts.hpp"

#include <chrono>
#include <cstdio>
#include <utility>
#include <vector>

namespace gpubench::testing {
namespace {

constexpr int batch = 64;
constexpr int batches = 400;

// Median over batches of the host time per launch, each batch drained outside the timing.
template <typename Launch> double bare_submit_us(CUstream stream, Launch launch) {
  std::vector<double> per_launch_us;
  for (int b = 0; b < batches + 20; ++b) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i) {
      launch();
    }
    const auto stop = std::chrono::steady_clock::now();
    GPUBENCH_CU(cuStreamSynchronize, stream);
    if (b >= 20) { // the first batches are warm-up
      per_launch_us.push_back(std::chrono::duration<double, std::micro>(stop - start).count() /
                              batch);
    }
  }
  return median(std::move(per_launch_us));
}

double gpubench_us(const std::string& filter) {
  const auto outcomes = run_benchmarks(filter);
  EXPECT_EQ(outcomes.size(), 1U);
  return outcomes.empty() ? 0.0 : outcomes.front().counters.at("us_per_launch");
}

using LaunchHarness = GpuTest;

TEST_F(LaunchHarness, SubmitAgreesWithABareLoop) {
  const CUstream s = stream();
  const CUfunction function =
      bench::driver_function(reinterpret_cast<const void*>(launch_probe_empty));
  // Rounds alternate the two measurements so that drift in the machine's state (clocks, other
  // tenants) hits both alike; the median round is compared.
  constexpr int rounds = 5;
  std::vector<double> gpubench_runtime, gpubench_driver, bare_runtime, bare_driver;
  for (int round = 0; round < rounds; ++round) {
    gpubench_runtime.push_back(gpubench_us("^launch/runtime/submit/params:0/"));
    bare_runtime.push_back(bare_submit_us(s, [s] { launch_probe_empty<<<1, 1, 0, s>>>(); }));
    GPUBENCH_CUDART(cudaGetLastError());
    gpubench_driver.push_back(gpubench_us("^launch/driver/submit/params:0/"));
    bare_driver.push_back(bare_submit_us(s, [s, function] {
      GPUBENCH_CU(cuLaunchKernel, function, 1, 1, 1, 1, 1, 1, 0, s, nullptr, nullptr);
    }));
  }
  const double runtime_ratio = median(gpubench_runtime) / median(bare_runtime);
  const double driver_ratio = median(gpubench_driver) / median(bare_driver);
  std::printf("submit, us per launch (median of %d rounds): runtime bare %.3f gpubench %.3f; "
              "driver bare %.3f gpubench %.3f\n",
              rounds, median(bare_runtime), median(gpubench_runtime), median(bare_driver),
              median(gpubench_driver));
  EXPECT_NEAR(runtime_ratio, 1.0, 0.05);
  EXPECT_NEAR(driver_ratio, 1.0, 0.05);
}

} // namespace
} // namespace gpubench::testing
