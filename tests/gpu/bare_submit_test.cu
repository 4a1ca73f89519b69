// The harness must not inflate what it measures: the submit cost of <<<>>> and cuLaunchKernel
// at 0 parameter bytes, timed by a bare loop written without Google Benchmark, must agree
// within 5% with gpubench's launch/<path>/submit/params:0 in the median of paired rounds.
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

// gpubench's figure over the bare loop's, per round, for one launch path. A round measures
// both, in the order that alternates between rounds, so that drift in the host's speed (it
// moves between seconds on a shared host) falls on each side alike; the median round is the
// path's ratio. Medians of each side taken apart compare figures seconds apart and let drift
// alone move the ratio past 5%.
template <typename Bare>
double median_ratio(const char* path, const std::string& filter, Bare bare) {
  constexpr int rounds = 9;
  std::vector<double> ratios;
  for (int round = 0; round < rounds; ++round) {
    double ours = 0.0;
    double theirs = 0.0;
    if (round % 2 == 0) {
      ours = gpubench_us(filter);
      theirs = bare();
    } else {
      theirs = bare();
      ours = gpubench_us(filter);
    }
    std::printf("%s round %d: gpubench %.3f us, bare %.3f us per launch\n", path, round, ours,
                theirs);
    ratios.push_back(ours / theirs);
  }
  return median(std::move(ratios));
}

using LaunchHarness = GpuTest;

TEST_F(LaunchHarness, SubmitAgreesWithABareLoop) {
  const CUstream s = stream();
  const CUfunction function =
      bench::driver_function(reinterpret_cast<const void*>(launch_probe_empty));
  const double runtime_ratio = median_ratio("runtime", "^launch/runtime/submit/params:0/", [s] {
    const double us = bare_submit_us(s, [s] { launch_probe_empty<<<1, 1, 0, s>>>(); });
    GPUBENCH_CUDART(cudaGetLastError());
    return us;
  });
  const double driver_ratio = median_ratio("driver", "^launch/driver/submit/params:0/", [&] {
    return bare_submit_us(s, [s, function] {
      GPUBENCH_CU(cuLaunchKernel, function, 1, 1, 1, 1, 1, 1, 0, s, nullptr, nullptr);
    });
  });
  std::printf("submit, gpubench over the bare loop (median round): runtime %.3f, driver %.3f\n",
              runtime_ratio, driver_ratio);
  EXPECT_NEAR(runtime_ratio, 1.0, 0.05);
  EXPECT_NEAR(driver_ratio, 1.0, 0.05);
}

} // namespace
} // namespace gpubench::testing
