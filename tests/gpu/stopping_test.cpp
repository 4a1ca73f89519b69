// How long gpubench measures, through the binary as a user runs it: by default its own stopping
// rule inside one Google Benchmark call; with --benchmark_min_time, at least that much measured
// time, as Google Benchmark means it. Every figure in the JSON is the median batch per operation.
#include "gpu_test.hpp"
#include "process.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

// One line per benchmark: ops (every operation timed), real_time in seconds, batches,
// noise_pct, host_timed, us_per_copy, iterations.
constexpr const char* figures = R"(import json, sys
d = json.load(open(sys.argv[1]))
scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
for b in d["benchmarks"]:
    c = lambda k: b.get(k, -1)
    print(c("ops"), b["real_time"] * scale[b["time_unit"]], c("batches"), c("noise_pct"),
          c("host_timed"), c("us_per_copy"), b["iterations"])
)";

struct Figures {
  double ops = 0;
  double real_time_s = 0;
  double batches = 0;
  double noise_pct = 0;
  double host_timed = 0;
  double us_per_copy = 0;
  double iterations = 0;
};

std::vector<Figures> run_copies(const std::vector<std::string>& extra) {
  ScratchDir scratch;
  const std::string out = scratch.path("run.json");
  std::vector<std::string> args{GPUBENCH_BINARY,
                                "--benchmark_filter=^copy/(DtoD/device|HtoD/pinned)/(async|sync)/",
                                "--sizes=64K", "--benchmark_out=" + out};
  args.insert(args.end(), extra.begin(), extra.end());
  const Finished run = run_process(args);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const Finished python = run_process({"/usr/bin/env", "python3", "-c", figures, out});
  EXPECT_EQ(python.exit_code, 0) << python.err;
  std::vector<Figures> found;
  for (const std::string& line : lines_of(python.out)) {
    std::istringstream fields(line);
    Figures f;
    fields >> f.ops >> f.real_time_s >> f.batches >> f.noise_pct >> f.host_timed >>
        f.us_per_copy >> f.iterations;
    found.push_back(f);
  }
  return found;
}

void expect_consistent(const Figures& f) {
  EXPECT_GE(f.batches, 3.0);
  EXPECT_GE(f.noise_pct, 0.0);
  EXPECT_GT(f.real_time_s, 0.0);
  // The counter and Google Benchmark's time are the same figure: the median batch per copy.
  EXPECT_NEAR(f.us_per_copy * 1e-6, f.real_time_s, 1e-3 * f.real_time_s);
  // Every operation timed is counted: whole batches of the same size.
  EXPECT_EQ(static_cast<long long>(f.ops) % static_cast<long long>(f.batches), 0);
  // At least what Google Benchmark asked for is timed.
  EXPECT_GE(f.ops, f.iterations);
}

TEST(Stopping, ByDefaultEachBenchmarkStopsOnItsOwnRule) {
  GPUBENCH_REQUIRE_GPU();
  const std::vector<Figures> found = run_copies({});
  ASSERT_EQ(found.size(), 4U); // DtoD and HtoD pinned, each async and sync
  for (const Figures& f : found) {
    expect_consistent(f);
    // At most the cap's worth of batches, a batch of 64 KiB copies being far below it.
    EXPECT_LT(f.ops * f.real_time_s, 0.2);
    EXPECT_EQ(f.iterations, 1.0); // the one call Google Benchmark makes at min_time 0
  }
}

TEST(Stopping, AGivenMinTimeIsMeasuredAtLeast) {
  GPUBENCH_REQUIRE_GPU();
  const std::vector<Figures> found =
      run_copies({"--benchmark_min_time=0.3" GPUBENCH_MIN_TIME_UNIT});
  ASSERT_EQ(found.size(), 4U);
  for (const Figures& f : found) {
    expect_consistent(f);
    EXPECT_GE(f.iterations * f.real_time_s, 0.3);
    EXPECT_GE(f.ops * f.real_time_s, 0.3);
  }
}

// Repetitions whose stopping rule times different numbers of batches (host-timed launch
// submits, L2-flushed saxpy) are one benchmark to Google Benchmark, which aborts where
// repetitions report different iteration counts.
TEST(Stopping, RepetitionsOfVaryingLengthAreOneBenchmark) {
  GPUBENCH_REQUIRE_GPU();
  ScratchDir scratch;
  const std::string out = scratch.path("run.json");
  const Finished run = run_process(
      {GPUBENCH_BINARY,
       "--benchmark_filter=^(launch/(graph|driver)/submit/params:0|saxpy/driver/1048576)/",
       "--benchmark_repetitions=4", "--benchmark_out=" + out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const Finished python = run_process(
      {"/usr/bin/env", "python3", "-c",
       "import json, sys\n"
       "d = json.load(open(sys.argv[1]))\n"
       "runs = [b for b in d['benchmarks'] if b['run_type'] == 'iteration']\n"
       "print(len(runs), sum(b['run_type'] == 'aggregate' for b in d['benchmarks']),\n"
       "      len({b['ops'] for b in runs}) > 1, d['context']['run_status'])\n",
       out});
  ASSERT_EQ(python.exit_code, 0) << python.err;
  // 3 benchmarks x 4 repetitions, with mean, median, stddev and cv each; the loops differed.
  EXPECT_EQ(python.out, "12 12 True complete\n");
}

} // namespace
} // namespace gpubench::testing
