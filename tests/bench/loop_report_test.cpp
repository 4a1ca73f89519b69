// How a timed loop's figure reaches Google Benchmark (report_loop), through Google Benchmark's
// own runner: repetitions whose loops timed different numbers of batches must not abort it
// (it requires every repetition of a benchmark to report the same iterations), and each
// repetition's real time is its median batch per operation.
#include "loop_report.hpp"

#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

namespace gpubench::bench {
namespace {

class Collect : public benchmark::BenchmarkReporter {
public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type == Run::RT_Iteration) {
        iterations.push_back(run.iterations);
        seconds_per_iteration.push_back(run.GetAdjustedRealTime() /
                                        benchmark::GetTimeUnitMultiplier(run.time_unit));
        ops.push_back(run.counters.at("ops").value);
        batches.push_back(run.counters.at("batches").value);
      } else {
        aggregates.push_back(run.aggregate_name);
      }
    }
  }
  std::vector<benchmark::IterationCount> iterations;
  std::vector<double> seconds_per_iteration;
  std::vector<double> ops;
  std::vector<double> batches;
  std::vector<std::string> aggregates;
};

// Each call times another number of batches of 64 operations, the median batch 128 µs (2 µs
// per operation), as the stopping rule does from one repetition to the next.
std::size_t calls = 0;

void stand_in_loop(benchmark::State& state) {
  const std::size_t batches = 10 + 7 * calls++;
  const BatchSpread spread{.median_seconds = 128e-6, .relative_spread = 0.01,
                           .mean_seconds = 130e-6};
  report_loop(state, spread, 64, batches, Clock::gpu);
}

TEST(LoopReport, RepetitionsThatTimedDifferentBatchesAreOneBenchmark) {
  benchmark::RegisterBenchmark("loop_report_probe", stand_in_loop)
      ->UseManualTime()
      ->MinTime(1e-9)
      ->Repetitions(3);
  Collect collect;
  ASSERT_EQ(benchmark::RunSpecifiedBenchmarks(&collect, "^loop_report_probe/"), 1U);
  ASSERT_EQ(collect.iterations.size(), 3U);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(collect.iterations[i], collect.iterations[0]);
    EXPECT_NEAR(collect.seconds_per_iteration[i], 2e-6, 1e-12);
    EXPECT_EQ(collect.ops[i], 64 * collect.batches[i]);
  }
  EXPECT_NE(collect.batches[0], collect.batches[2]);
  EXPECT_FALSE(collect.aggregates.empty()); // mean, median, stddev and cv of the three
}

} // namespace
} // namespace gpubench::bench
