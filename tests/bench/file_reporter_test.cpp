// The --benchmark_out writer: after every benchmark the file is a complete, valid document of
// everything so far, whatever stops the run (a finished run, any number of signals delivered
// any way, a SIGKILL).
#include "benchmark_json.hpp"
#include "file_reporter.hpp"
#include "process.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <thread>

namespace gpubench::testing {
namespace {

using Reporter = bench::FileReporter;

benchmark::BenchmarkReporter::Run run_named(const std::string& name) {
  benchmark::BenchmarkReporter::Run run;
  run.run_name.function_name = name;
  run.iterations = 10;
  run.real_accumulated_time = 1e-3;
  run.cpu_accumulated_time = 1e-3;
  return run;
}

// Google Benchmark's context, as it makes one for a run of short names.
benchmark::BenchmarkReporter::Context context() {
  benchmark::BenchmarkReporter::Context context;
  context.name_field_width = 10;
  return context;
}

// The names of the files in `directory`.
std::set<std::string> entries_of(const std::string& directory) {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    names.insert(entry.path().filename().string());
  }
  return names;
}

// Every entry once, whole, named as the probe names them; the count.
std::size_t expect_whole_entries(const BenchmarkJson& json) {
  std::set<std::string> names;
  for (const JsonBenchmark& benchmark : json.benchmarks) {
    EXPECT_TRUE(benchmark.complete) << benchmark.name << " is a partial entry";
    EXPECT_TRUE(names.insert(benchmark.name).second) << benchmark.name << " twice";
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(names.count("probe/" + std::to_string(i)), 1U) << "probe/" << i << " missing";
  }
  return names.size();
}

TEST(FileReporter, EveryBenchmarkLeavesAValidDocument) {
  ScratchDir scratch;
  const std::string out = scratch.path("run.json");
  Reporter file(out, "json");
  file.set_context("run_status", "running");
  file.ReportContext(context());
  BenchmarkJson json = read_benchmark_json(out);
  ASSERT_TRUE(json.valid) << json.problem << "\n" << read_file(out);
  EXPECT_EQ(json.context.at("run_status"), "running");
  EXPECT_TRUE(json.benchmarks.empty());
  for (int i = 0; i < 3; ++i) {
    file.ReportRuns({run_named("probe/" + std::to_string(i))});
    json = read_benchmark_json(out);
    ASSERT_TRUE(json.valid) << json.problem << "\n" << read_file(out);
    EXPECT_EQ(expect_whole_entries(json), static_cast<std::size_t>(i + 1));
    EXPECT_EQ(json.context.at("run_status"), "running");
  }
  // A value with quotes, a backslash and a newline stays one JSON string.
  file.set_context("gpu_health_after", "{\"a\": \"b\\c\"}\n");
  file.set_context("run_status", "complete");
  file.close();
  EXPECT_TRUE(file.written());
  EXPECT_EQ(file.reported(), 3U);
  json = read_benchmark_json(out);
  ASSERT_TRUE(json.valid) << json.problem << "\n" << read_file(out);
  EXPECT_EQ(json.context.at("run_status"), "complete");
  EXPECT_EQ(json.context.at("gpu_health_after"), "{\"a\": \"b\\c\"} ");
  EXPECT_EQ(json.benchmarks.size(), 3U);
  EXPECT_EQ(count_of(read_file(out), "\"run_status\""), 1U) << "a key set twice is written once";
  EXPECT_EQ(entries_of(scratch.dir()), std::set<std::string>{"run.json"}) << "a file left beside";
}

TEST(FileReporter, ClosingWithoutARunStillWritesTheContext) {
  ScratchDir scratch;
  const std::string out = scratch.path("none.json");
  Reporter file(out, "json");
  file.set_context("run_status", "interrupted");
  file.close();
  const BenchmarkJson json = read_benchmark_json(out);
  ASSERT_TRUE(json.valid) << json.problem << "\n" << read_file(out);
  EXPECT_EQ(json.context.at("run_status"), "interrupted");
  EXPECT_TRUE(json.benchmarks.empty());
}

TEST(FileReporter, CsvAndConsoleFilesHoldEveryBenchmarkSoFar) {
  ScratchDir scratch;
  for (const std::string format : {"csv", "console"}) {
    const std::string out = scratch.path("run." + format);
    Reporter file(out, format);
    file.set_context("run_status", "running"); // JSON only: no trace in these formats
    file.ReportContext(context());
    file.ReportRuns({run_named("probe/0")});
    file.ReportRuns({run_named("probe/1")});
    std::string text = read_file(out);
    EXPECT_EQ(count_of(text, "probe/0"), 1U) << text;
    EXPECT_EQ(count_of(text, "probe/1"), 1U) << text;
    EXPECT_EQ(count_of(text, "run_status"), 0U) << text;
    if (format == "csv") {
      EXPECT_EQ(count_of(text, "name,iterations,"), 1U) << text;
    }
    file.close();
    EXPECT_EQ(read_file(out), text);
  }
}

TEST(FileReporter, ReplacingKeepsAnExistingFilesPermissions) {
  ScratchDir scratch;
  const std::string out = scratch.path("kept.json");
  std::ofstream(out) << "old";
  ASSERT_EQ(chmod(out.c_str(), 0640), 0);
  Reporter file(out, "json");
  file.close();
  struct stat status {};
  ASSERT_EQ(stat(out.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 07777, 0640U);
}

// The new file each write renames over the output is one of its own: a file beside the output,
// named as a temporary might be, is left as it was.
TEST(FileReporter, FilesBesideTheOutputAreLeftAsTheyAre) {
  ScratchDir scratch;
  const std::string out = scratch.path("run.json");
  for (const std::string name : {"run.json.tmp", ".run.json.tmp", "run.tmp"}) {
    std::ofstream(scratch.path(name)) << "an earlier result";
  }
  Reporter file(out, "json");
  file.ReportContext(context());
  file.ReportRuns({run_named("probe/0")});
  file.close();
  EXPECT_TRUE(file.written());
  const BenchmarkJson json = read_benchmark_json(out);
  EXPECT_TRUE(json.valid) << json.problem << "\n" << read_file(out);
  for (const std::string name : {"run.json.tmp", ".run.json.tmp", "run.tmp"}) {
    EXPECT_EQ(read_file(scratch.path(name)), "an earlier result") << name;
  }
  EXPECT_EQ(entries_of(scratch.dir()).size(), 4U);
}

// An output whose name is as long as a directory entry allows (255 bytes) is written: the new
// file beside it has a name of its own that fits.
TEST(FileReporter, AnOutputNamedAsLongAsANameMayBeIsWritten) {
  ScratchDir scratch;
  const std::string out = scratch.path(std::string(250, 'r') + ".json");
  Reporter file(out, "json");
  file.ReportContext(context());
  file.ReportRuns({run_named("probe/0")});
  file.close();
  EXPECT_TRUE(file.written());
  EXPECT_TRUE(read_benchmark_json(out).valid) << read_file(out);
  EXPECT_EQ(entries_of(scratch.dir()).size(), 1U) << "a file left beside";
}

// A symbolic link to the file: the file is replaced, the link stays.
TEST(FileReporter, ReplacesTheFileALinkNames) {
  ScratchDir scratch;
  const std::string target = scratch.path("target.json");
  const std::string link = scratch.path("link.json");
  std::ofstream(target) << "old";
  std::filesystem::create_symlink(target, link);
  Reporter file(link, "json");
  file.close();
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_TRUE(read_benchmark_json(target).valid) << read_file(target);
}

// A FIFO cannot be renamed over: the reader gets one complete document, at close.
TEST(FileReporter, AFifoGetsTheWholeDocumentOnce) {
  ScratchDir scratch;
  const std::string fifo = scratch.path("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = read_file(fifo); });
  {
    Reporter file(fifo, "json");
    file.set_context("run_status", "running");
    file.ReportContext(context());
    file.ReportRuns({run_named("probe/0")});
    file.set_context("run_status", "complete");
    file.close();
    EXPECT_TRUE(file.written());
  }
  reader.join();
  const std::string copy = scratch.path("copy.json");
  std::ofstream(copy) << received;
  const BenchmarkJson json = read_benchmark_json(copy);
  ASSERT_TRUE(json.valid) << json.problem << "\n" << received;
  EXPECT_EQ(json.context.at("run_status"), "complete");
  EXPECT_EQ(json.benchmarks.size(), 1U);
  EXPECT_EQ(count_of(received, "\"context\""), 1U);
}

// A FIFO nobody reads by the end of the run: the write fails once no reader has come for 3 s
// (the probe's exit status 1, as gpubench's line and status) where waiting for a reader would
// never end, not even on SIGTERM.
TEST(FileReporter, AFifoWithoutAReaderFailsAfterItsWait) {
  ScratchDir scratch;
  const std::string fifo = scratch.path("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  Process probe({FILE_REPORTER_PROBE, fifo, "json", "2", "1"});
  const Finished run = probe.wait(std::chrono::seconds(20));
  EXPECT_FALSE(run.timed_out) << "waited for a reader";
  EXPECT_EQ(run.signal, 0);
  EXPECT_EQ(run.exit_code, 1) << run.err;
}

// --benchmark_out=/dev/stdout with stdout sent to a file: the document is written through the
// stream, once, not renamed over the file (which would cut stdout off from its name).
TEST(FileReporter, DevStdoutIntoAFileIsWrittenThrough) {
  const Finished run = run_process({FILE_REPORTER_PROBE, "/dev/stdout", "json", "3", "1"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  ScratchDir scratch;
  const std::string copy = scratch.path("stdout.json");
  std::ofstream(copy) << run.out;
  const BenchmarkJson json = read_benchmark_json(copy);
  ASSERT_TRUE(json.valid) << json.problem << "\n" << run.out;
  EXPECT_EQ(json.context.at("run_status"), "complete");
  EXPECT_EQ(json.benchmarks.size(), 3U);
}

// ulimit -f reached part-way through the run: the write that would pass it fails, and the run
// ends saying so (the probe's exit status 1, as gpubench's line and status), not killed by
// SIGXFSZ; the file keeps the last complete document and no new file is left beside it.
TEST(FileReporter, AWritePastTheFileSizeLimitFailsAndKeepsTheLastDocument) {
  ScratchDir scratch;
  const std::string out = scratch.path("probe.json");
  const Finished run = run_process({"/bin/sh", "-c", "ulimit -f 8 && exec \"$0\" \"$@\"",
                                    FILE_REPORTER_PROBE, out, "json", "200", "0"});
  EXPECT_EQ(run.signal, 0) << run.err;
  EXPECT_EQ(run.exit_code, 1) << run.err;
  const BenchmarkJson json = read_benchmark_json(out);
  ASSERT_TRUE(json.valid) << json.problem << "\n" << read_file(out);
  EXPECT_EQ(json.context.at("run_status"), "running");
  EXPECT_GT(json.benchmarks.size(), 0U);
  EXPECT_EQ(entries_of(scratch.path("")), std::set<std::string>{"probe.json"});
}

// The probe (file_reporter_probe.cpp) runs benchmarks of `ms` each until `count`, in a process
// group of its own; returns once `at_least` are in its file.
struct ProbeRun {
  ScratchDir scratch;
  std::string out = scratch.path("probe.json");
  Process process;
  ProbeRun(int count, int ms)
      : process({FILE_REPORTER_PROBE, out, "json", std::to_string(count), std::to_string(ms)},
                Stream::captured, Stream::captured, Group::own) {}
  void wait_for(std::size_t at_least) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (count_of(read_file(out), "\"run_name\"") < at_least &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ASSERT_GE(count_of(read_file(out), "\"run_name\""), at_least);
  }
};

// What every interrupted run leaves: exit 128 + the signal, a valid file marked interrupted by
// it, holding every benchmark the line says were completed (at least `at_least`).
void expect_interrupted(ProbeRun& probe, int signal, const std::string& name,
                        std::size_t at_least) {
  const Finished run = probe.process.wait(std::chrono::seconds(20));
  EXPECT_FALSE(run.timed_out);
  EXPECT_EQ(run.signal, 0) << "killed by the signal instead of handling it";
  EXPECT_EQ(run.exit_code, 128 + signal) << run.err;
  const BenchmarkJson json = read_benchmark_json(probe.out);
  ASSERT_TRUE(json.valid) << json.problem << "\n" << read_file(probe.out);
  EXPECT_EQ(json.context.at("run_status"), "interrupted");
  EXPECT_EQ(json.context.at("interrupted"), name);
  const std::size_t entries = expect_whole_entries(json);
  EXPECT_GE(entries, at_least);
  EXPECT_EQ(count_of(run.err, "interrupted;"), 1U) << run.err;
  EXPECT_NE(run.err.find(fmt::format("the {} completed", entries)), std::string::npos) << run.err;
}

TEST(FileReporterSignals, OneSigterm) {
  ProbeRun probe(100000, 5);
  probe.wait_for(3);
  probe.process.send(SIGTERM);
  expect_interrupted(probe, SIGTERM, "SIGTERM", 3);
}

// The console's reader gone (`gpubench | head`): SIGPIPE at the next line printed stops the run
// as the other signals do, the file kept, where its default action would end the process at
// once, the file left "running", and nothing said.
TEST(FileReporterSignals, AClosedPipeOnStdout) {
  ScratchDir scratch;
  const std::string out = scratch.path("probe.json");
  Process probe({FILE_REPORTER_PROBE, out, "json", "100000", "5", "console"}, Stream::broken);
  const Finished run = probe.wait(std::chrono::seconds(20));
  EXPECT_FALSE(run.timed_out);
  EXPECT_EQ(run.signal, 0) << "killed by SIGPIPE instead of handling it";
  EXPECT_EQ(run.exit_code, 128 + SIGPIPE) << run.err;
  const BenchmarkJson json = read_benchmark_json(out);
  ASSERT_TRUE(json.valid) << json.problem << "\n" << read_file(out);
  EXPECT_EQ(json.context.at("run_status"), "interrupted");
  EXPECT_EQ(json.context.at("interrupted"), "SIGPIPE");
  EXPECT_EQ(expect_whole_entries(json), 1U) << "the first line printed met the closed pipe";
}

TEST(FileReporterSignals, OneSigint) {
  ProbeRun probe(100000, 5);
  probe.wait_for(3);
  probe.process.send(SIGINT);
  expect_interrupted(probe, SIGINT, "SIGINT", 3);
}

// What `timeout` does: the signal to the child, then at once to its process group.
TEST(FileReporterSignals, TwoAtOnceLikeTimeout) {
  ProbeRun probe(100000, 5);
  probe.wait_for(3);
  probe.process.send(SIGTERM);
  probe.process.send_to_group(SIGTERM);
  expect_interrupted(probe, SIGTERM, "SIGTERM", 3);
}

TEST(FileReporterSignals, ToTheProcessGroup) {
  ProbeRun probe(100000, 5);
  probe.wait_for(3);
  probe.process.send_to_group(SIGINT);
  expect_interrupted(probe, SIGINT, "SIGINT", 3);
}

// A burst, mixed, some to the group, and more while the file is being written: the first names
// the interruption, the rest change nothing.
TEST(FileReporterSignals, ABurstOfMany) {
  ProbeRun probe(100000, 5);
  probe.wait_for(3);
  probe.process.send(SIGTERM);
  for (int i = 0; i < 200; ++i) {
    if (i % 2 == 0) {
      probe.process.send(i % 4 == 0 ? SIGINT : SIGTERM);
    } else {
      probe.process.send_to_group(SIGTERM);
    }
  }
  expect_interrupted(probe, SIGTERM, "SIGTERM", 3);
}

TEST(FileReporterSignals, ThroughTimeout) {
  ScratchDir scratch;
  const std::string out = scratch.path("timeout.json");
  const Finished run = run_process({"/usr/bin/timeout", "--preserve-status", "--signal=TERM",
                                    "1", FILE_REPORTER_PROBE, out, "json", "100000", "5"});
  EXPECT_EQ(run.exit_code, 143) << run.err;
  const BenchmarkJson json = read_benchmark_json(out);
  ASSERT_TRUE(json.valid) << json.problem << "\n" << read_file(out);
  EXPECT_EQ(json.context.at("run_status"), "interrupted");
  EXPECT_GE(expect_whole_entries(json), 1U);
}

// SIGKILL, which no handler sees: the file still holds every benchmark completed, and says the
// run never ended.
TEST(FileReporterSignals, SigkillMidRunLeavesWhatWasCompleted) {
  ProbeRun probe(100000, 5);
  probe.wait_for(5);
  probe.process.send(SIGKILL);
  const Finished run = probe.process.wait(std::chrono::seconds(20));
  EXPECT_EQ(run.signal, SIGKILL);
  const BenchmarkJson json = read_benchmark_json(probe.out);
  ASSERT_TRUE(json.valid) << json.problem << "\n" << read_file(probe.out);
  EXPECT_EQ(json.context.at("run_status"), "running");
  EXPECT_GE(expect_whole_entries(json), 5U);
}

// SIGKILL at many moments once the file exists, mid-write included (benchmarks of 0 ms: the
// probe does little but write its file): every time, the file is valid.
TEST(FileReporterSignals, SigkillAtAnyMomentNeverLeavesAPartialFile) {
  std::mt19937 random(21);
  std::uniform_int_distribution<int> delay_us(0, 30000);
  for (int i = 0; i < 15; ++i) {
    ProbeRun probe(100000, 0);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!std::filesystem::exists(probe.out) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us(random)));
    probe.process.send(SIGKILL);
    static_cast<void>(probe.process.wait(std::chrono::seconds(20)));
    const BenchmarkJson json = read_benchmark_json(probe.out);
    ASSERT_TRUE(json.valid) << "kill " << i << ": " << json.problem << "\n"
                            << read_file(probe.out);
    EXPECT_EQ(json.context.at("run_status"), "running");
    expect_whole_entries(json);
  }
}

} // namespace
} // namespace gpubench::testing
