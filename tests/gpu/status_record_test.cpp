// gpubench's --status-out record on runs that measure, as the cluster scripts leave it and
// scripts/gpubench-tools fleet reads it: `done` with exit 0 after a run that ends, `running` while
// one measures, `interrupted` with exit 143 after a SIGTERM (a Slurm time limit, a Kubernetes
// eviction), beside a result file that holds what was completed. The paths that need no GPU are
// tests/bench/status_out_test.cpp's.
#include "benchmark_json.hpp"
#include "gpu_test.hpp"
#include "process.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace gpubench::testing {
namespace {

// fleet's own reader of a record (reading/fleet/status.py): each field it read, as key=value.
constexpr const char* fleet_read = R"(import sys
from gpubench_tools.reading.fleet.status import parse_record
with open(sys.argv[1], encoding="utf-8") as record:
    for key, value in parse_record(record.read().splitlines()).items():
        print(f"{key}={value}")
)";

// Expects fleet to read the record at `path` as it is written: every line a field, in order.
void expect_fleet_reads(const std::string& path) {
  Process python({"/usr/bin/env", "python3", "-c", fleet_read, path}, Stream::captured,
                 Stream::captured, Group::shared,
                 Launch{.program = "", .environment = {"PYTHONPATH=" GPUBENCH_SCRIPTS}});
  const Finished read = python.wait(std::chrono::seconds(60));
  ASSERT_EQ(read.exit_code, 0) << "fleet refuses the record: " << read.err << "\n"
                               << read_file(path);
  EXPECT_EQ(lines_of(read.out), lines_of(read_file(path)));
}

// Polls until `ready` holds or `limit` has passed; whether it held.
template <typename Ready> bool wait_until(Ready ready, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!ready()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

TEST(StatusRecordRun, AMeasurementThatEndsIsDoneWithExitZero) {
  GPUBENCH_REQUIRE_GPU();
  ScratchDir scratch;
  const std::string record = scratch.path("r.status");
  const std::string out = scratch.path("r.json");
  const Finished run = run_process({GPUBENCH_BINARY, "--benchmark_filter=^saxpy/runtime/1024/",
                                    "--benchmark_min_time=0.01", "--benchmark_out=" + out,
                                    "--status-out=" + record, "--status-field=node=testnode"});
  ASSERT_FALSE(run.timed_out) << run.err;
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(record_lines(record),
            (std::vector<std::string>{"status=done", "exit=0", "node=testnode", "time=TIME"}));
  expect_fleet_reads(record);
  // fleet reads a `done` as a result to find: the run's, complete and measured.
  const BenchmarkJson json = read_benchmark_json(out);
  ASSERT_TRUE(json.valid) << json.problem << "\n" << read_file(out);
  EXPECT_EQ(json.context.at("run_status"), "complete");
  ASSERT_EQ(json.benchmarks.size(), 1U);
  EXPECT_TRUE(json.benchmarks.front().complete && !json.benchmarks.front().error)
      << json.benchmarks.front().message;
  // Each replaced whole: nothing is left beside them.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(scratch.dir()),
                          std::filesystem::directory_iterator()),
            2);
}

TEST(StatusRecordRun, SigtermMidRunIsInterruptedWithExit143) {
  GPUBENCH_REQUIRE_GPU();
  ScratchDir scratch;
  const std::string record = scratch.path("r.status");
  const std::string out = scratch.path("r.json");
  // 75 copy benchmarks of at least 0.1 s each: still measuring long after the first is done.
  Process gpubench({GPUBENCH_BINARY, "--benchmark_filter=^copy/", "--sizes=4K,64K,1M",
                    "--benchmark_min_time=0.1", "--benchmark_out=" + out, "--status-out=" + record,
                    "--status-field=node=testnode"});

  ASSERT_TRUE(wait_until([&] { return read_file(record).starts_with("status=running\n"); },
                         std::chrono::seconds(30)))
      << "no running record in 30 s: " << read_file(record);
  EXPECT_EQ(record_lines(record), (std::vector<std::string>{"status=running", "exit=none",
                                                            "node=testnode", "time=TIME"}));
  expect_fleet_reads(record);
  // The record says running from the moment the flags are read, before a GPU is open and the
  // signal handlers are in place: the signal waits for a benchmark in the result file.
  ASSERT_TRUE(wait_until([&] { return count_of(read_file(out), "\"run_name\"") >= 1; },
                         std::chrono::minutes(2)))
      << "no benchmark completed in 2 min";
  EXPECT_EQ(record_lines(record).front(), "status=running");

  gpubench.send(SIGTERM);
  const Finished run = gpubench.wait(std::chrono::minutes(2));
  EXPECT_FALSE(run.timed_out) << "gpubench did not stop within 2 min of SIGTERM";
  EXPECT_EQ(run.signal, 0) << "killed by the signal instead of handling it";
  EXPECT_EQ(run.exit_code, 143) << run.err;
  EXPECT_EQ(record_lines(record), (std::vector<std::string>{"status=interrupted", "exit=143",
                                                            "node=testnode", "time=TIME"}));
  expect_fleet_reads(record);

  const BenchmarkJson json = read_benchmark_json(out);
  ASSERT_TRUE(json.valid) << json.problem << "\n" << read_file(out);
  EXPECT_EQ(json.context.at("run_status"), "interrupted");
  EXPECT_EQ(json.context.at("interrupted"), "SIGTERM");
  ASSERT_FALSE(json.benchmarks.empty());
  for (const JsonBenchmark& benchmark : json.benchmarks) {
    EXPECT_TRUE(benchmark.complete) << benchmark.name << " is a partial entry";
  }
}

} // namespace
} // namespace gpubench::testing
