// Every batch case moves its scattered pieces intact (the benchmark's own verification: each
// piece in its slot, every other byte of the destination region still poisoned), at the family's
// default piece counts and sizes; a batch whose calls queue more than a gate holds is timed
// ungated and marked host-timed, and its figures agree with each other. A size that does not fit
// is skipped with its reason.
#include "gpu_test.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

// The components of batch/<direction>/<api>/pieces:<n>/<piece bytes>.
struct BatchName {
  std::string api;
  std::size_t pieces = 0;
  std::size_t piece_bytes = 0;
};

BatchName parse(const std::string& name) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  for (std::size_t slash = name.find('/'); slash != std::string::npos;
       slash = name.find('/', begin)) {
    parts.push_back(name.substr(begin, slash - begin));
    begin = slash + 1;
  }
  parts.push_back(name.substr(begin));
  if (parts.size() < 5 || !parts[3].starts_with("pieces:")) {
    return {};
  }
  return {parts[2], std::stoul(parts[3].substr(7)), std::stoul(parts[4])};
}

TEST(BatchPieces, EveryCaseIsVerifiedWithSaneFigures) {
  GPUBENCH_REQUIRE_GPU();
  const std::vector<BenchmarkOutcome> outcomes = run_benchmarks("^batch/");
  // 2 directions x 3 ways x the default 3 counts x 3 sizes.
  EXPECT_EQ(outcomes.size(), 2U * 3U * 3U * 3U);
  for (const BenchmarkOutcome& outcome : outcomes) {
    const BatchName name = parse(outcome.name);
    ASSERT_GT(name.pieces, 0U) << outcome.name;
    // The batch API is skipped, with the versions found, only where the runtime or driver
    // predates it.
    if (outcome.failed && name.api == "memcpy_batch" &&
        outcome.message.find("cudaMemcpyBatchAsync needs CUDA 12.8") != std::string::npos) {
      continue;
    }
    EXPECT_FALSE(outcome.failed) << outcome.name << ": " << outcome.message;
    if (outcome.failed) {
      continue;
    }
    EXPECT_GT(outcome.iterations, 0) << outcome.name;
    for (const char* counter : {"bytes_per_second", "us_per_batch", "batches", "host_timed"}) {
      ASSERT_TRUE(outcome.counters.contains(counter)) << outcome.name << ": " << counter;
    }
    EXPECT_GE(outcome.counters.at("batches"), 3.0) << outcome.name;
    // Gated, except a loop or batch API call of more pieces than a gate may hold.
    const bool ungated = name.api != "gather_kernel" && name.pieces > 256;
    EXPECT_EQ(outcome.counters.at("host_timed"), ungated ? 1.0 : 0.0) << outcome.name;
    const double rate = outcome.counters.at("bytes_per_second");
    const double us = outcome.counters.at("us_per_batch");
    EXPECT_GT(us, 0.0) << outcome.name;
    // Past any host link's bandwidth is a figure timed wrong.
    EXPECT_GT(rate, 0.0) << outcome.name;
    EXPECT_LT(rate, 2e12) << outcome.name;
    // Both figures are of one batch of n x size bytes.
    const double bytes = static_cast<double>(name.pieces * name.piece_bytes);
    EXPECT_NEAR(rate * us * 1e-6 / bytes, 1.0, 1e-6) << outcome.name;
  }
}

// A layout whose regions the device cannot hold is skipped with its reason, not failed; the
// smaller size in the same run still runs.
TEST(BatchPieces, ALayoutPastDeviceMemoryIsSkipped) {
  GPUBENCH_REQUIRE_GPU();
  expect_the_second_skipped(
      {"--benchmark_filter=^batch/HtoD/gather_kernel/", "--batch-pieces=1M",
       "--batch-piece-sizes=4,4G"},
      "skipped: 1048576 pieces of 4GiB in regions of 8192TiB: 2 x 8192TiB of device memory "
      "needed");
}

} // namespace
} // namespace gpubench::testing
