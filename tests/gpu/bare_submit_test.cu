// The harness must not inflate what it measures: the submit cost of <<<>>> and cuLaunchKernel
// at 0 parameter bytes, timed by a bare loop written without Google Benchmark, must agree
// within 5% with gpubench's launch/<path>/submit/params:0.
#include "driver_api.hpp"
#include "gpu_test.hpp"
#include "launch_probe.cuh"
#include "runtime_kernels.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
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
  std::nth_element(per_launch_us.begin(), per_launch_us.begin() + batches / 2,
                   per_launch_us.end());
  return per_launch_us[batches / 2];
}

double gpubench_us(const std::string& filter) {
  const auto outcomes = run_benchmarks(filter);
  EXPECT_EQ(outcomes.size(), 1U);
  return outcomes.empty() ? 0.0 : outcomes.front().counters.at("us_per_launch");
}

TEST(LaunchHarness, SubmitAgreesWithABareLoop) {
  GPUBENCH_REQUIRE_GPU();
  const double gpubench_runtime = gpubench_us("^launch/runtime/submit/params:0/");
  const double gpubench_driver = gpubench_us("^launch/driver/submit/params:0/");

  const Stream stream;
  const CUstream s = stream.get();
  const double bare_runtime = bare_submit_us(s, [s] { launch_probe_empty<<<1, 1, 0, s>>>(); });
  GPUBENCH_CUDART(cudaGetLastError());
  const CUfunction function =
      bench::driver_function(reinterpret_cast<const void*>(launch_probe_empty));
  const double bare_driver = bare_submit_us(s, [s, function] {
    GPUBENCH_CU(cuLaunchKernel, function, 1, 1, 1, 1, 1, 1, 0, s, nullptr, nullptr);
  });
  std::printf("submit, us per launch: runtime bare %.3f gpubench %.3f; driver bare %.3f "
              "gpubench %.3f\n",
              bare_runtime, gpubench_runtime, bare_driver, gpubench_driver);
  EXPECT_NEAR(gpubench_runtime / bare_runtime, 1.0, 0.05);
  EXPECT_NEAR(gpubench_driver / bare_driver, 1.0, 0.05);
}

} // namespace
} // namespace gpubench::testing
