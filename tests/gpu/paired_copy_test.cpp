// copy/<HtoD|DtoH>/<pageable|pinned>/sync_paired/: a synchronous copy timed in rounds beside two
// host references. Each run verifies its own bytes (the destination holds the source's random
// bytes after the rounds); this checks that every case runs at the default --paired-sizes, that
// the harness's rounds are the rounds recorded, that the rounds ran in blocks of eight each
// after one unrecorded round (on another CPU), that each copy and each reference took time,
// and that the figure, a copy's time over the references' geometric mean in the same rounds,
// agrees with the medians beside it.
#include "gpu_test.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

TEST(PairedCopy, EveryCaseIsVerifiedWithItsFigureOverTheHostReferences) {
  GPUBENCH_REQUIRE_GPU();
  const std::vector<BenchmarkOutcome> outcomes = run_benchmarks("^copy/.*/sync_paired/");
  // HtoD and DtoH, from pageable and pinned memory, at 4 KiB and 1 MiB.
  expect_all_verified(outcomes, 8U, "refs_per_copy");
  for (const BenchmarkOutcome& outcome : outcomes) {
    if (outcome.failed) {
      continue;
    }
    const auto& c = outcome.counters;
    for (const char* key : {"copy_us", "host_syscall_us", "host_spin_us", "rounds", "blocks",
                            "copies_per_batch", "copies", "host_referenced"}) {
      ASSERT_TRUE(c.contains(key)) << outcome.name << ": " << key;
    }
    EXPECT_EQ(c.at("host_referenced"), 1.0) << outcome.name;
    // The harness's lone round, its warm-up batch and at least three timed batches of 24.
    EXPECT_GE(c.at("rounds"), 97.0) << outcome.name;
    EXPECT_EQ(c.at("blocks"), std::ceil(c.at("rounds") / 8.0)) << outcome.name;
    EXPECT_EQ(c.at("copies"), (c.at("rounds") + c.at("blocks")) * c.at("copies_per_batch"))
        << outcome.name;
    const bool small = outcome.name.find("/4096") != std::string::npos;
    EXPECT_EQ(c.at("copies_per_batch"), small ? 16.0 : 4.0) << outcome.name;
    for (const char* key : {"copy_us", "host_syscall_us", "host_spin_us"}) {
      EXPECT_GT(c.at(key), 0.0) << outcome.name << ": " << key;
    }
    // The median of the rounds' ratios against the ratio of the medians: the same within what
    // the rounds' spread allows.
    const double of_medians =
        c.at("copy_us") / std::sqrt(c.at("host_syscall_us") * c.at("host_spin_us"));
    EXPECT_GT(c.at("refs_per_copy"), of_medians / 1.5) << outcome.name;
    EXPECT_LT(c.at("refs_per_copy"), of_medians * 1.5) << outcome.name;
  }
}

} // namespace
} // namespace gpubench::testing
