// gpubench stopped by SIGTERM or SIGINT mid-run, as a CI cancel, a Slurm time limit or a
// Kubernetes eviction stops it: the --benchmark_out file is valid JSON holding every benchmark
// completed, marked interrupted; one line on stderr names the signal; exit 128 + the signal.
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

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++count;
  }
  return count;
}

void expect_interrupted_run_keeps_what_it_measured(int signal, const std::string& name) {
  ScratchDir scratch;
  const std::string out = scratch.path("interrupted.json");
  // Every copy benchmark at every default size: minutes of work, so the signal lands mid-run.
  Process gpubench({GPUBENCH_BINARY, "--benchmark_filter=^copy/", "--benchmark_min_time=0.2",
                    "--benchmark_out=" + out});
  // The first benchmark completed is in the file once its entry is (the reporter flushes each).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  while (count_of(read_file(out), "\"run_name\"") == 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_GT(count_of(read_file(out), "\"run_name\""), 0U) << "no benchmark completed in 3 min";
  gpubench.send(signal);
  const Finished run = gpubench.wait(std::chrono::seconds(120));

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
  ASSERT_GE(json.benchmarks.size(), 1U);
  EXPECT_EQ(json.benchmarks.size(), said_count) << "the line's count and the file's differ";
  EXPECT_FALSE(json.benchmarks.front().error) << json.benchmarks.front().message;
  std::set<std::string> names;
  for (const JsonBenchmark& benchmark : json.benchmarks) {
    EXPECT_TRUE(benchmark.complete) << benchmark.name << " is a partial entry";
    EXPECT_TRUE(names.insert(benchmark.name).second) << benchmark.name << " twice";
    EXPECT_TRUE(benchmark.name.starts_with("copy/")) << benchmark.name;
  }
}

TEST(Interrupt, SigtermKeepsWhatWasMeasured) {
  GPUBENCH_REQUIRE_GPU();
  expect_interrupted_run_keeps_what_it_measured(SIGTERM, "SIGTERM");
}

TEST(Interrupt, SigintKeepsWhatWasMeasured) {
  GPUBENCH_REQUIRE_GPU();
  expect_interrupted_run_keeps_what_it_measured(SIGINT, "SIGINT");
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
}

} // namespace
} // namespace gpubench::testing
