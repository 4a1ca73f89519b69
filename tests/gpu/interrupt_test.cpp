// gpubench stopped mid-run as a CI cancel, a Slurm time limit or a Kubernetes eviction stops it,
// by each way a signal arrives: once, twice at once (`timeout` signals the child and then its
// process group), to the process group, in a burst, through `timeout` itself. Every time the
// --benchmark_out file is valid JSON holding every benchmark completed, marked interrupted; one
// line on stderr names the signal; exit 128 + the signal. A SIGKILL, which no handler sees,
// leaves every completed benchmark too, in a file that says the run never ended.
#include "benchmark_json.hpp"
#include "gpu_test.hpp"
#include "process.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <set>
#include <string>
#include <thread>

namespace gpubench::testing {
namespace {

// 75 copy benchmarks of small sizes, each at least `min_time_s` long: benchmarks complete within
// the first seconds, and the run lasts at least 75 times `min_time_s` more.
std::vector<std::string> short_run(const std::string& out, const char* min_time_s = "0.02") {
  return {GPUBENCH_BINARY, "--benchmark_filter=^copy/", "--sizes=4K,64K,1M",
          std::string("--benchmark_min_time=") + min_time_s, "--benchmark_out=" + out};
}

// `command` run by `launcher` (such as nohup), which execs it.
std::vector<std::string> launched(std::vector<std::string> launcher,
                                  const std::vector<std::string>& command) {
  launcher.insert(launcher.end(), command.begin(), command.end());
  return launcher;
}

// gpubench on the short run, in a process group of its own as a shell job is, started by
// `launcher` where one is given.
struct ShortRun {
  explicit ShortRun(std::vector<std::string> launcher = {})
      : gpubench{launched(std::move(launcher), short_run(out)), Stream::captured, Stream::captured,
                 Group::own} {}

  ScratchDir scratch;
  std::string out = scratch.path("interrupted.json");
  Process gpubench;

  // Returns once `at_least` benchmarks are in the file (it is replaced whole after each).
  void wait_for(std::size_t at_least) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    while (count_of(read_file(out), "\"run_name\"") < at_least &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_GE(count_of(read_file(out), "\"run_name\""), at_least) << "too few in 2 min";
  }
};

// Every entry once and whole, each a copy benchmark, the first a measurement; their count.
std::size_t expect_whole_entries(const BenchmarkJson& json) {
  if (!json.benchmarks.empty()) {
    EXPECT_FALSE(json.benchmarks.front().error) << json.benchmarks.front().message;
  }
  std::set<std::string> names;
  for (const JsonBenchmark& benchmark : json.benchmarks) {
    EXPECT_TRUE(benchmark.complete) << benchmark.name << " is a partial entry";
    EXPECT_TRUE(names.insert(benchmark.name).second) << benchmark.name << " twice";
    EXPECT_TRUE(benchmark.name.starts_with("copy/")) << benchmark.name;
  }
  return names.size();
}

void expect_interrupted(const std::string& out, const Finished& run, int signal,
                        const std::string& name, std::size_t at_least) {
  EXPECT_FALSE(run.timed_out) << "gpubench did not stop within 2 min of " << name;
  EXPECT_EQ(run.signal, 0) << "killed by the signal instead of handling it";
  EXPECT_EQ(run.exit_code, 128 + signal) << run.err;

  // One line names the signal, and it is gpubench's last word. (Google Benchmark's context
  // header and family notes may precede it on stderr.)
  const std::vector<std::string> lines = lines_of(run.err);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(count_of(run.err, "interrupted by"), 1U) << run.err;
  const std::string said = "gpubench: interrupted by " + name + "; the ";
  EXPECT_TRUE(lines.back().starts_with(said)) << lines.back();
  EXPECT_TRUE(lines.back().ends_with(" completed are in " + out)) << lines.back();
  const std::size_t said_count =
      lines.back().starts_with(said) ? std::stoul(lines.back().substr(said.size())) : 0;

  const BenchmarkJson json = read_benchmark_json(out);
  ASSERT_TRUE(json.valid) << json.problem << "\n" << read_file(out);
  EXPECT_EQ(json.context.count("interrupted"), 1U);
  EXPECT_EQ(json.context.at("interrupted"), name);
  EXPECT_EQ(json.context.at("run_status"), "interrupted");
  EXPECT_EQ(json.context.count("gpu_state_after"), 1U);
  EXPECT_EQ(json.context.count("gpu_health_after"), 1U);
  const std::size_t entries = expect_whole_entries(json);
  EXPECT_GE(entries, at_least);
  EXPECT_EQ(entries, said_count) << "the line's count and the file's differ";
}

// A short run sent `signal` once, after its first benchmark.
void expect_one_signal_kept(int signal, const std::string& name) {
  ShortRun run;
  run.wait_for(1);
  run.gpubench.send(signal);
  expect_interrupted(run.out, run.gpubench.wait(), signal, name, 1);
}

TEST(Interrupt, SigtermKeepsWhatWasMeasured) {
  GPUBENCH_REQUIRE_GPU();
  expect_one_signal_kept(SIGTERM, "SIGTERM");
}

TEST(Interrupt, SigintKeepsWhatWasMeasured) {
  GPUBENCH_REQUIRE_GPU();
  expect_one_signal_kept(SIGINT, "SIGINT");
}

// The terminal or ssh session gpubench was started from closes.
TEST(Interrupt, SighupKeepsWhatWasMeasured) {
  GPUBENCH_REQUIRE_GPU();
  expect_one_signal_kept(SIGHUP, "SIGHUP");
}

// `nohup gpubench`: started with SIGHUP ignored, it runs on past a hangup to the end.
TEST(Interrupt, NohupRunsOnPastAHangup) {
  GPUBENCH_REQUIRE_GPU();
  ShortRun run({"/usr/bin/nohup"});
  run.wait_for(1);
  run.gpubench.send(SIGHUP);
  run.gpubench.send_to_group(SIGHUP);
  const Finished finished = run.gpubench.wait();
  EXPECT_EQ(finished.signal, 0);
  EXPECT_EQ(finished.exit_code, 0) << finished.err;
  const BenchmarkJson json = read_benchmark_json(run.out);
  ASSERT_TRUE(json.valid) << json.problem << "\n" << read_file(run.out);
  EXPECT_EQ(json.context.at("run_status"), "complete");
  EXPECT_EQ(json.context.count("interrupted"), 0U);
  EXPECT_EQ(expect_whole_entries(json), 75U);
}

// What `timeout` does when its time is up: the signal to the child, then at once to its group.
TEST(Interrupt, TwoSignalsAtOnceLikeTimeout) {
  GPUBENCH_REQUIRE_GPU();
  ShortRun run;
  run.wait_for(1);
  run.gpubench.send(SIGTERM);
  run.gpubench.send_to_group(SIGTERM);
  expect_interrupted(run.out, run.gpubench.wait(), SIGTERM, "SIGTERM", 1);
}

// Ctrl-C at a terminal: the foreground process group gets it.
TEST(Interrupt, ToTheProcessGroup) {
  GPUBENCH_REQUIRE_GPU();
  ShortRun run;
  run.wait_for(1);
  run.gpubench.send_to_group(SIGINT);
  expect_interrupted(run.out, run.gpubench.wait(), SIGINT, "SIGINT", 1);
}

// A scheduler repeating its SIGTERM, a user pressing Ctrl-C again, mixed, while gpubench writes
// what it measured: the first names the interruption, none of the rest ends the process.
TEST(Interrupt, ABurstOfManySignals) {
  GPUBENCH_REQUIRE_GPU();
  ShortRun run;
  run.wait_for(1);
  run.gpubench.send(SIGTERM);
  // The kernel delivers a process's pending signals lowest number first: a SIGINT sent while
  // the SIGTERM is still pending (gpubench inside a driver call) would be taken first. The
  // burst starts once the first has had time to arrive.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  for (int i = 0; i < 200; ++i) {
    if (i % 2 == 0) {
      run.gpubench.send(i % 4 == 0 ? SIGINT : SIGTERM);
    } else {
      run.gpubench.send_to_group(SIGTERM);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  expect_interrupted(run.out, run.gpubench.wait(), SIGTERM, "SIGTERM", 1);
}

// `timeout` itself, as a job script uses it (--preserve-status: gpubench's own exit status).
TEST(Interrupt, ThroughTimeout) {
  GPUBENCH_REQUIRE_GPU();
  ScratchDir scratch;
  const std::string out = scratch.path("timeout.json");
  std::vector<std::string> argv{"/usr/bin/timeout", "--preserve-status", "--signal=TERM", "6"};
  // At least 7.5 s of measuring: timeout stops it, after the first benchmarks are done.
  for (const std::string& arg : short_run(out, "0.1")) {
    argv.push_back(arg);
  }
  const Finished run = run_process(argv);
  expect_interrupted(out, run, SIGTERM, "SIGTERM", 1);
}

// SIGKILL: no handler runs, and the file still holds every benchmark completed before it, with
// "running" for a run that never ended.
TEST(Interrupt, SigkillMidRunLeavesWhatWasCompleted) {
  GPUBENCH_REQUIRE_GPU();
  ShortRun run;
  run.wait_for(3);
  run.gpubench.send(SIGKILL);
  const Finished killed = run.gpubench.wait();
  EXPECT_EQ(killed.signal, SIGKILL);
  const BenchmarkJson json = read_benchmark_json(run.out);
  ASSERT_TRUE(json.valid) << json.problem << "\n" << read_file(run.out);
  EXPECT_EQ(json.context.at("run_status"), "running");
  EXPECT_EQ(json.context.count("gpu_health_before"), 1U);
  EXPECT_GE(expect_whole_entries(json), 3U);
}

// With stderr closed, the next file opened would take its number and receive Google Benchmark's
// context header: the JSON must stay clean.
TEST(RunOutput, ClosedStderrStaysOutOfTheJson) {
  GPUBENCH_REQUIRE_GPU();
  ScratchDir scratch;
  const std::string out = scratch.path("run.json");
  const Finished run =
      run_process({GPUBENCH_BINARY, "--benchmark_filter=^copy/HtoD/pinned/async/", "--sizes=4K,64K",
                   "--benchmark_min_time=0.01", "--benchmark_out=" + out},
                  Stream::captured, Stream::closed);
  EXPECT_EQ(run.signal, 0);
  EXPECT_EQ(run.exit_code, 0);
  const BenchmarkJson json = read_benchmark_json(out);
  ASSERT_TRUE(json.valid) << json.problem << "\n" << read_file(out);
  ASSERT_EQ(json.benchmarks.size(), 2U);
  for (const JsonBenchmark& benchmark : json.benchmarks) {
    EXPECT_TRUE(benchmark.complete && !benchmark.error) << benchmark.name << benchmark.message;
  }
  EXPECT_EQ(json.context.count("gpu_state_after"), 1U);
  EXPECT_EQ(json.context.at("run_status"), "complete");
}

} // namespace
} // namespace gpubench::testing
