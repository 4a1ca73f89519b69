// launch/shape/<dimension>/<value>/{submit,gpu_gap}: one kernel launched in every shape. Each run
// verifies its launches (the GPU counted every launch and block, each block saw its parameters,
// grid, block and dynamic shared memory as launched and read back every word of that memory,
// and every launch of a gap batch stamped in stream order); this checks that every shape the GPU
// can take runs, one it cannot is skipped with the reason, and the figures are whole and
// consistent with the shapes' names.
#include "context.hpp"
#include "device_info.hpp"
#include "driver_api.hpp"
#include "gpu_test.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

// The shapes and the blocks, threads and bytes each stands for on device 0.
struct Expected {
  double blocks;
  double block_threads;
  double shared_bytes;
};

std::map<std::string, Expected> expected_shapes() {
  const double sms = query_device(0).sm_count;
  std::map<std::string, Expected> shapes{{"grid/blocks:1", {1, 32, 0}},
                                         {"grid/waves:1", {sms, 32, 0}},
                                         {"grid/waves:4", {4 * sms, 32, 0}},
                                         {"grid/waves:16", {16 * sms, 32, 0}},
                                         {"grid/waves:64", {64 * sms, 32, 0}},
                                         {"carveout/fixed", {sms, 32, 8192}},
                                         {"carveout/alternating", {sms, 32, 8192}}};
  for (const int threads : {32, 128, 256, 512, 1024}) {
    shapes["block/threads:" + std::to_string(threads)] = {sms, static_cast<double>(threads), 0};
  }
  for (const int bytes : {0, 8192, 49152, 114688, 232448}) {
    shapes["smem/bytes:" + std::to_string(bytes)] = {sms, 32, static_cast<double>(bytes)};
  }
  return shapes;
}

// "launch/shape/grid/waves:4/gpu_gap/manual_time" -> "grid/waves:4".
std::string shape_of(std::string name) {
  const std::string prefix = "launch/shape/";
  const std::string suffix = "/manual_time";
  if (name.ends_with(suffix)) {
    name.resize(name.size() - suffix.size());
  }
  return name.substr(prefix.size(), name.rfind('/') - prefix.size());
}

int optin_shared_bytes() {
  int bytes = 0;
  GPUBENCH_CU(cuDeviceGetAttribute, &bytes, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
              device_at(0));
  return bytes;
}

// The outcomes device 0 runs, each a shape named once; expects a shape with more dynamic shared
// memory than a block may opt in to here skipped with the reason, every other one run.
std::vector<BenchmarkOutcome> those_run_here(const std::vector<BenchmarkOutcome>& outcomes) {
  const std::map<std::string, Expected> shapes = expected_shapes();
  EXPECT_EQ(outcomes.size(), shapes.size());
  const int optin = optin_shared_bytes();
  std::vector<BenchmarkOutcome> run;
  for (const BenchmarkOutcome& outcome : outcomes) {
    const auto shape = shapes.find(shape_of(outcome.name));
    if (shape == shapes.end()) {
      ADD_FAILURE() << outcome.name << " is no shape this test knows";
      continue;
    }
    if (shape->second.shared_bytes > optin) {
      EXPECT_TRUE(outcome.failed && outcome.message.starts_with("skipped: "))
          << outcome.name
          << " runs with more shared memory than a block may opt in to: " << outcome.message;
    } else {
      run.push_back(outcome);
    }
  }
  return run;
}

void expect_the_shape_counted(const BenchmarkOutcome& outcome) {
  const Expected expected = expected_shapes().at(shape_of(outcome.name));
  const auto& c = outcome.counters;
  ASSERT_TRUE(c.contains("blocks") && c.contains("block_threads") && c.contains("shared_bytes"))
      << outcome.name;
  EXPECT_EQ(c.at("blocks"), expected.blocks) << outcome.name;
  EXPECT_EQ(c.at("block_threads"), expected.block_threads) << outcome.name;
  EXPECT_EQ(c.at("shared_bytes"), expected.shared_bytes) << outcome.name;
}

const BenchmarkOutcome* find(const std::vector<BenchmarkOutcome>& outcomes,
                             const std::string& shape) {
  for (const BenchmarkOutcome& outcome : outcomes) {
    if (shape_of(outcome.name) == shape && !outcome.failed) {
      return &outcome;
    }
  }
  return nullptr;
}

TEST(LaunchShapes, EveryShapesGapsAreStampedInStreamOrder) {
  GPUBENCH_REQUIRE_GPU();
  const std::vector<BenchmarkOutcome> run =
      those_run_here(run_benchmarks("^launch/shape/.*/gpu_gap/"));
  expect_all_verified(run, run.size(), "gaps");
  for (const BenchmarkOutcome& outcome : run) {
    if (outcome.failed) {
      continue;
    }
    expect_the_shape_counted(outcome);
    ASSERT_NO_FATAL_FAILURE(expect_gap_figures(outcome));
  }
  // A launch of more blocks keeps the GPU at least as long, kernel and gap together (the Time
  // column): each grid's time per launch is no less than the smaller grid's before it, less 10%
  // for noise, and 64 waves take longer than one block.
  const char* grids[] = {"grid/blocks:1", "grid/waves:1", "grid/waves:4", "grid/waves:16",
                         "grid/waves:64"};
  const BenchmarkOutcome* smaller = nullptr;
  for (const char* grid : grids) {
    const BenchmarkOutcome* outcome = find(run, grid);
    ASSERT_NE(outcome, nullptr) << grid;
    if (smaller != nullptr) {
      EXPECT_GE(outcome->seconds_per_iteration, 0.9 * smaller->seconds_per_iteration)
          << grid << " against " << smaller->name;
    }
    smaller = outcome;
  }
  EXPECT_GT(find(run, "grid/waves:64")->seconds_per_iteration,
            find(run, "grid/blocks:1")->seconds_per_iteration);
}

TEST(LaunchShapes, EverySubmitVerifiesItsLaunches) {
  GPUBENCH_REQUIRE_GPU();
  const std::vector<BenchmarkOutcome> run =
      those_run_here(run_benchmarks("^launch/shape/.*/submit/"));
  expect_all_verified(run, run.size(), "us_per_launch");
  for (const BenchmarkOutcome& outcome : run) {
    if (!outcome.failed) {
      expect_the_shape_counted(outcome);
      // No launch takes a millisecond of the host's time to submit.
      EXPECT_LT(outcome.counters.at("us_per_launch"), 1000.0) << outcome.name;
    }
  }
}

} // namespace
} // namespace gpubench::testing
