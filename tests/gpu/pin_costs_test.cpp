// Every pin case pins what it names (the runtime calls its memory page-locked with the API's
// flags), carries a copy's random bytes to the device and back through it, times the step it
// names on the host clock, and made as many pins or releases as the harness counted: the
// benchmark's own verification. A size that does not fit is skipped with its reason.
#include "gpu_test.hpp"
#include "pin_check.hpp"

#include <cuda_runtime_api.h>

#include <optional>
#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

// The third component of pin/<api>/<step>/<bytes>.
std::string step_of(const std::string& name) {
  const std::size_t api = name.find('/') + 1;
  const std::size_t step = name.find('/', api) + 1;
  return name.substr(step, name.find('/', step) - step);
}

TEST(PinCosts, EveryCaseIsVerifiedAndHostTimed) {
  GPUBENCH_REQUIRE_GPU();
  const std::vector<BenchmarkOutcome> outcomes = run_benchmarks("^pin/");
  // 6 APIs x (pin + release) at 4 KiB (64 regions a batch) and 64 MiB (one), gpu_test.cpp's
  // --pin-sizes.
  EXPECT_EQ(outcomes.size(), 6U * 2U * 2U);
  for (const BenchmarkOutcome& outcome : outcomes) {
    EXPECT_FALSE(outcome.failed) << outcome.name << ": " << outcome.message;
    if (outcome.failed) {
      continue;
    }
    const std::string step = step_of(outcome.name);
    // A registration is unpinned, an allocation freed.
    if (step != "pin") {
      EXPECT_EQ(step, outcome.name.starts_with("pin/register/") ? "unpin" : "free") << outcome.name;
    }
    const std::string counter = "us_per_" + step;
    ASSERT_TRUE(outcome.counters.contains(counter)) << outcome.name;
    EXPECT_GT(outcome.counters.at(counter), 0.0) << outcome.name;
    ASSERT_TRUE(outcome.counters.contains("bytes_per_second")) << outcome.name;
    EXPECT_GT(outcome.counters.at("bytes_per_second"), 0.0) << outcome.name;
    ASSERT_TRUE(outcome.counters.contains("host_timed")) << outcome.name;
    EXPECT_EQ(outcome.counters.at("host_timed"), 1.0) << outcome.name;
    ASSERT_TRUE(outcome.counters.contains("batches")) << outcome.name;
    EXPECT_GE(outcome.counters.at("batches"), 3.0) << outcome.name;
  }
}

// As in the default suite, where other families free pinned memory before the pin family runs
// (and the runtime then reported mapped memory's flags, 0x2, for small portable allocations):
// after small mapped memory is freed, every allocating API's memory passes the family's check.
TEST(PinCosts, AllocationsAfterFreedMappedMemoryPassTheirCheck) {
  GPUBENCH_REQUIRE_GPU();
  ASSERT_EQ(cudaFree(nullptr), cudaSuccess);
  for (const std::size_t bytes : {std::size_t{4096}, std::size_t{1} << 20}) {
    for (const auto& api : bench::pin_apis()) {
      if (api->pins_existing_memory()) {
        continue;
      }
      void* mapped = nullptr;
      ASSERT_EQ(cudaHostAlloc(&mapped, bytes, cudaHostAllocMapped), cudaSuccess);
      ASSERT_EQ(cudaFreeHost(mapped), cudaSuccess);
      void* pinned = api->pin(nullptr, bytes);
      const std::optional<std::string> mismatch = bench::pinned_mismatch(*api, pinned);
      api->release(pinned);
      EXPECT_FALSE(mismatch.has_value()) << bytes << " B: " << mismatch.value_or("");
    }
  }
}

// A size past the host's memory is skipped with its reason, however large: 2^62 bytes pinned
// is not wrapped to a small need.
TEST(PinCosts, ASizePastHostMemoryIsSkipped) {
  GPUBENCH_REQUIRE_GPU();
  expect_the_second_skipped({"--benchmark_filter=^pin/register/pin/", "--pin-sizes=4K,4294967296G"},
                            "skipped: 4194304TiB pins need 8388608TiB of host memory");
}

} // namespace
} // namespace gpubench::testing
