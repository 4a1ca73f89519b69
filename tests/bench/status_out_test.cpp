// gpubench's --status-out record, as the cluster scripts read it, on paths that need no GPU: a
// listing (done, exit 0), no GPU (failed, exit 1), a flag it cannot read (no record, exit 2), a
// file it cannot write and a field fleet would refuse (one line, exit 2, no record). No path
// without a GPU lives long enough for a signal to reach gpubench's handlers: they are installed
// once a GPU has opened. A run that measures, and one stopped by SIGTERM, are
// tests/gpu/status_record_test.cpp's.
#include "context.hpp"
#include "cuda_error.hpp"
#include "process.hpp"
#include "status_record.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

constexpr int exit_failure = 1;
constexpr int exit_usage = 2;

bool has_gpu() {
  try {
    return device_count() > 0;
  } catch (const CudaError&) {
    return false;
  }
}

Finished run_gpubench(const std::vector<std::string>& args) {
  return run_process(command_line(GPUBENCH_BINARY, args));
}

void expect_one_line(const Finished& run, int exit_code, const std::string& text) {
  EXPECT_EQ(run.exit_code, exit_code) << run.err;
  EXPECT_EQ(lines_of(run.err).size(), 1U) << run.err;
  EXPECT_TRUE(run.err.starts_with("gpubench: ")) << run.err;
  EXPECT_NE(run.err.find(text), std::string::npos) << run.err;
}

TEST(StatusOut, AListingIsDoneWithTheFieldsGivenInTheRecordsOrder) {
  ScratchDir scratch;
  const std::string record = scratch.path("n1_GPU-1.status");
  const Finished run = run_gpubench(
      {"--benchmark_list_tests", "--benchmark_filter=saxpy/driver", "--status-out=" + record,
       "--status-field=attempt=3", "--status-field=node=n1", "--status-field=job=42",
       "--status-field=task=0", "--status-field=device=GPU-1", "--status-field=gpu_uuid=GPU-1"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(
      record_lines(record),
      (std::vector<std::string>{"status=done", "exit=0", "gpu_uuid=GPU-1", "node=n1", "job=42",
                                "task=0", "device=GPU-1", "time=TIME", "attempt=3"}));
  // Replaced whole: nothing is left beside it.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(scratch.dir()),
                          std::filesystem::directory_iterator()),
            1);
}

TEST(StatusOut, NoGpuIsFailedWithExitStatusOne) {
  if (has_gpu()) {
    GTEST_SKIP() << "a GPU is present: the run would measure it";
  }
  ScratchDir scratch;
  const std::string record = scratch.path("r.status");
  const Finished run = run_gpubench({"--status-out=" + record, "--status-field=node=n1"});
  expect_one_line(run, exit_failure, "no CUDA device");
  EXPECT_EQ(record_lines(record),
            (std::vector<std::string>{"status=failed", "exit=1", "node=n1", "time=TIME"}));
}

TEST(StatusOut, AFlagGpubenchCannotReadWritesNoRecord) {
  ScratchDir scratch;
  const std::string record = scratch.path("r.status");
  expect_one_line(run_gpubench({"--status-out=" + record, "--no_such_flag"}), exit_usage,
                  "unknown flag");
  EXPECT_FALSE(std::filesystem::exists(record));
}

TEST(StatusOut, AFileThatCannotBeWrittenIsOneLine) {
  ScratchDir scratch;
  for (const std::string& file : {scratch.path("missing/r.status"), scratch.dir()}) {
    expect_one_line(run_gpubench({"--benchmark_list_tests", "--status-out=" + file}), exit_usage,
                    "--status-out=" + file + ": cannot be written");
  }
}

TEST(StatusOut, AFieldFleetWouldRefuseIsOneLine) {
  ScratchDir scratch;
  const std::string record = scratch.path("r.status");
  for (const std::string field :
       {"node=a/b", "node=a b", "task=", "job=x=y", "attempt=", "attempt=1234567890",
        "gpu_uuid=GPU-1,uuid", "device=0 1", "status=done", "exit=0", "time=now", "colour=red"}) {
    const Finished run = run_gpubench(
        {"--benchmark_list_tests", "--status-out=" + record, "--status-field=" + field});
    if (field == "task=") {
      EXPECT_EQ(run.exit_code, 0) << run.err; // empty: unknown, as fleet reads it
      std::filesystem::remove(record);
      continue;
    }
    expect_one_line(run, exit_usage, "--status-field=" + field);
    EXPECT_FALSE(std::filesystem::exists(record)) << field;
  }
  expect_one_line(run_gpubench({"--benchmark_list_tests", "--status-field=node=n1"}), exit_usage,
                  "given without --status-out");
  expect_one_line(run_gpubench({"--benchmark_list_tests", "--status-field=node"}), exit_usage,
                  "expected --status-field=KEY=VALUE");
}

TEST(StatusRecord, ExitStatusesReadAsTheScriptsReadThem) {
  using gpubench::bench::status_of_exit;
  EXPECT_EQ(status_of_exit(0), "done");
  for (const int interrupted : {129, 130, 143}) {
    EXPECT_EQ(status_of_exit(interrupted), "interrupted") << interrupted;
  }
  EXPECT_EQ(status_of_exit(137), "killed");
  for (const int failed : {1, 2, 134, 139, 141}) {
    EXPECT_EQ(status_of_exit(failed), "failed") << failed;
  }
}

} // namespace
} // namespace gpubench::testing
