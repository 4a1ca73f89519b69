// Every managed case moves its random bytes intact (the benchmark's own verification: the bytes
// read back on the side that should hold them, or the copy of every byte a touch read), at the
// family's default sizes and granules, with figures that agree with each other and a rate a
// host link can carry. Where the device cannot run managed memory, every case is skipped with
// the attribute that says why; a size that does not fit is skipped with its reason.
#include "benchmark_json.hpp"
#include "gpu_test.hpp"
#include "process.hpp"

#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

// The size: the last component of a managed name that is a number (Google Benchmark may add
// its own after it, such as manual_time).
double size_of(const std::string& name) {
  std::size_t end = name.size();
  while (end > 0) {
    const std::size_t begin = name.rfind('/', end - 1);
    const std::string part = name.substr(begin == std::string::npos ? 0 : begin + 1,
                                         end - (begin == std::string::npos ? 0 : begin + 1));
    if (!part.empty() && part.find_first_not_of("0123456789") == std::string::npos) {
      return std::stod(part);
    }
    if (begin == std::string::npos) {
      break;
    }
    end = begin;
  }
  return 0.0;
}

TEST(ManagedMigration, EveryCaseIsVerifiedWithSaneFigures) {
  GPUBENCH_REQUIRE_GPU();
  const std::vector<BenchmarkOutcome> outcomes = run_benchmarks("^managed/");
  // 2 sizes x (2 prefetches + 2 orders x 3 granules x 3 advices + 2 host touches).
  EXPECT_EQ(outcomes.size(), 2U * (2U + 2U * 3U * 3U + 2U));
  for (const BenchmarkOutcome& outcome : outcomes) {
    if (outcome.failed && outcome.message.find("cudaDevAttr") != std::string::npos) {
      continue; // skipped where the device cannot, naming the attribute that says so
    }
    EXPECT_FALSE(outcome.failed) << outcome.name << ": " << outcome.message;
    if (outcome.failed) {
      continue;
    }
    EXPECT_GT(outcome.iterations, 0) << outcome.name;
    const bool prefetch = outcome.name.find("/prefetch/") != std::string::npos;
    const char* per_op = prefetch ? "us_per_prefetch" : "us_per_touch";
    for (const char* counter : {"bytes_per_second", per_op, "batches", "host_timed"}) {
      ASSERT_TRUE(outcome.counters.contains(counter)) << outcome.name << ": " << counter;
    }
    EXPECT_GE(outcome.counters.at("batches"), 3.0) << outcome.name;
    // The driver's page work runs on the host: every managed figure moves with it.
    EXPECT_EQ(outcome.counters.at("host_timed"), 1.0) << outcome.name;
    const double rate = outcome.counters.at("bytes_per_second");
    // A prefetch is a DMA over the host link: between 1 and 1000 GB/s. A touch that faults may
    // be slow, never free nor past any link.
    if (prefetch) {
      EXPECT_GT(rate, 1e9) << outcome.name;
      EXPECT_LT(rate, 1e12) << outcome.name;
    } else {
      EXPECT_GT(rate, 1e6) << outcome.name;
      EXPECT_LT(rate, 2e12) << outcome.name;
    }
    // Both figures are of one pass over the buffer.
    ASSERT_GT(size_of(outcome.name), 0.0) << outcome.name;
    EXPECT_NEAR(rate * outcome.counters.at(per_op) * 1e-6 / size_of(outcome.name), 1.0, 1e-6)
        << outcome.name;
  }
}

// A size the device cannot hold twice is skipped with its reason, not failed; the smaller size
// in the same run still runs.
TEST(ManagedMigration, ASizePastDeviceMemoryIsSkipped) {
  GPUBENCH_REQUIRE_GPU();
  ScratchDir scratch;
  const std::string out = scratch.path("managed.json");
  const Finished run = run_process({GPUBENCH_BINARY, "--benchmark_filter=^managed/HtoD/prefetch/",
                                    "--managed-sizes=4K,65536G", "--benchmark_out=" + out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const BenchmarkJson json = read_benchmark_json(out);
  ASSERT_TRUE(json.valid) << json.problem;
  ASSERT_EQ(json.benchmarks.size(), 2U);
  if (json.benchmarks[0].message.find("cudaDevAttr") != std::string::npos) {
    GTEST_SKIP() << json.benchmarks[0].message;
  }
  EXPECT_FALSE(json.benchmarks[0].error) << json.benchmarks[0].message;
  EXPECT_TRUE(json.benchmarks[1].message.starts_with(
      "skipped: 64TiB of managed memory needs twice that of device memory"))
      << json.benchmarks[1].message;
}

} // namespace
} // namespace gpubench::testing
