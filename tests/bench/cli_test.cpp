// gpubench as a user runs it: exit codes and one-line errors, on machines with and without a GPU.
#include "context.hpp"
#include "cuda_error.hpp"
#include "gpu_context.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <regex>
#include <string>

namespace {

struct Outcome {
  int status = -1;
  std::string output; // stdout and stderr together
};

Outcome run_gpubench(const std::string& args) {
  const std::string command = std::string(GPUBENCH_BINARY) + " " + args + " 2>&1";
  Outcome outcome;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    return outcome;
  }
  std::array<char, 4096> chunk{};
  while (const std::size_t n = fread(chunk.data(), 1, chunk.size(), pipe)) {
    outcome.output.append(chunk.data(), n);
  }
  const int raw = pclose(pipe);
  outcome.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  return outcome;
}

bool has_gpu() {
  try {
    return gpubench::device_count() > 0;
  } catch (const gpubench::CudaError&) {
    return false;
  }
}

void expect_one_line_error(const Outcome& outcome, int status, const std::string& text) {
  EXPECT_EQ(outcome.status, status) << outcome.output;
  ASSERT_FALSE(outcome.output.empty());
  EXPECT_EQ(outcome.output.find('\n'), outcome.output.size() - 1) << outcome.output;
  EXPECT_TRUE(outcome.output.starts_with("gpubench: ")) << outcome.output;
  EXPECT_NE(outcome.output.find(text), std::string::npos) << outcome.output;
}

TEST(Cli, ListsBenchmarksWithoutTouchingTheGpu) {
  const Outcome outcome = run_gpubench("--benchmark_list_tests --benchmark_filter=saxpy/driver");
  EXPECT_EQ(outcome.status, 0) << outcome.output;
  EXPECT_NE(outcome.output.find("saxpy/driver/1024/manual_time"), std::string::npos);
  EXPECT_NE(outcome.output.find("saxpy/driver/1073741824/manual_time"), std::string::npos);
  EXPECT_EQ(outcome.output.find("saxpy/runtime"), std::string::npos);
}

TEST(Cli, EveryFamilyIsRegistered) {
  const Outcome outcome = run_gpubench("--benchmark_list_tests");
  EXPECT_EQ(outcome.status, 0);
  for (const char* name :
       {"saxpy/vec4/268435456/", "saxpy/cublas/1024/", "saxpy/thrust/1024/", "saxpy/graph/1024/",
        "launch/driver/submit/params:0/", "launch/graph/roundtrip/params:32764/",
        "launch/module/ptx_jit/", "copy/HtoD/pinned/async/268435456/",
        "copy/bidir/pinned_wc/async/4/", "copy/DtoD/device/sync/1073741824/",
        "copy/DtoH/pinned/zerocopy/4096/", "copy/HtoH/pageable/sync/67108864/"}) {
    EXPECT_NE(outcome.output.find(name), std::string::npos) << name;
  }
}

TEST(Cli, SizesFlagChoosesTheCopySizes) {
  const Outcome outcome = run_gpubench(
      "--benchmark_list_tests --benchmark_filter=copy/HtoD/pinned/async --sizes=1K..4K:x2");
  EXPECT_EQ(outcome.status, 0);
  EXPECT_EQ(outcome.output,
            "copy/HtoD/pinned/async/1024/manual_time\ncopy/HtoD/pinned/async/2048/manual_time\n"
            "copy/HtoD/pinned/async/4096/manual_time\n");
}

TEST(Cli, SizesFlagChoosesThePeerSizesToo) {
  const Outcome outcome = run_gpubench("--benchmark_list_tests --device=0,1 --sizes=4K,1M "
                                       "--benchmark_filter=^peer/ce/read/0to1/");
  // Without a GPU the names list from the flags alone; a machine with GPUs checks the devices.
  if (has_gpu() && gpubench::device_count() < 2) {
    expect_one_line_error(outcome, 1, "device 1 does not exist");
    return;
  }
  EXPECT_EQ(outcome.status, 0);
  EXPECT_EQ(outcome.output, "peer/ce/read/0to1/4096/manual_time\n"
                            "peer/ce/read/0to1/1048576/manual_time\n");
}

TEST(Cli, DescribePrintsTheFamiliesWithoutTouchingTheGpu) {
  const Outcome outcome = run_gpubench("--describe");
  EXPECT_EQ(outcome.status, 0) << outcome.output;
  EXPECT_TRUE(outcome.output.starts_with("{\n  \"schema\": 1,")) << outcome.output;
  EXPECT_NE(outcome.output.find("\"name\": \"copy\""), std::string::npos) << outcome.output;
  EXPECT_NE(run_gpubench("--help").output.find("--describe"), std::string::npos);
  expect_one_line_error(run_gpubench("--describe --bogus"), 2, "unknown flag '--bogus'");
}

// The build type a run writes in its context (gpubench_build_type), without a GPU: what a script
// needs to know of a binary before it runs it against a result of another build.
TEST(Cli, VersionStatesTheBuildTypeWithoutTouchingTheGpu) {
  const Outcome outcome = run_gpubench("--version");
  EXPECT_EQ(outcome.status, 0) << outcome.output;
  EXPECT_EQ(outcome.output, gpubench::bench::version_line());
  std::smatch match;
  ASSERT_TRUE(std::regex_match(outcome.output, match,
                               std::regex(R"(gpubench \S+\+\S+ \(([A-Za-z]+) build\)\n)")))
      << outcome.output;
#ifdef NDEBUG
  EXPECT_NE(match[1].str(), "Debug");
#else
  EXPECT_EQ(match[1].str(), "Debug");
#endif
  EXPECT_NE(run_gpubench("--help").output.find("--version"), std::string::npos);
  expect_one_line_error(run_gpubench("--version --describe"), 2,
                        "--describe and --version: each prints something in place of a run");
}

TEST(Cli, BadFlagsGetOneLineAndExitTwo) {
  expect_one_line_error(run_gpubench("--device=abc"), 2, "--device=abc: not a device number");
  expect_one_line_error(run_gpubench("--device=-2"), 2, "cannot be negative");
  expect_one_line_error(run_gpubench("--sizes="), 2, "--sizes=: empty size list");
  expect_one_line_error(run_gpubench("--sizes=0"), 2, "zero");
  expect_one_line_error(run_gpubench("--sizes=-1K"), 2, "negative");
  expect_one_line_error(run_gpubench("--sizes=lots"), 2, "not a number");
  expect_one_line_error(run_gpubench("--l2=lukewarm"), 2, "expected cold or warm");
  expect_one_line_error(run_gpubench("--bogus"), 2, "unknown flag '--bogus'");
}

TEST(Cli, EnergyIsAFlagWithoutAValue) {
  EXPECT_NE(run_gpubench("--help").output.find("--energy "), std::string::npos);
  for (const char* arg : {"--energy=1", "--energy=yes", "--energy="}) {
    expect_one_line_error(run_gpubench(arg), 2, fmt::format("unknown flag '{}'", arg));
  }
  // Listing takes it and still needs no GPU.
  const Outcome listed = run_gpubench("--energy --benchmark_list_tests --benchmark_filter=^copy/");
  EXPECT_EQ(listed.status, 0) << listed.output;
  EXPECT_NE(listed.output.find("copy/HtoD/pinned/async/"), std::string::npos) << listed.output;
}

TEST(Cli, NoGpuMeansOneLineAndExitOne) {
  if (has_gpu()) {
    GTEST_SKIP() << "this machine has a GPU; DeviceOutOfRange covers it";
  }
  for (const char* args : {"--benchmark_filter=saxpy/driver/1024", "--info", "",
                           "--energy --benchmark_filter=^copy/"}) {
    expect_one_line_error(run_gpubench(args), 1, "no CUDA device: ");
  }
}

TEST(Cli, DeviceOutOfRangeIsOneLine) {
  if (!has_gpu()) {
    GTEST_SKIP() << "no CUDA device: NoGpuMeansOneLineAndExitOne covers this machine";
  }
  expect_one_line_error(run_gpubench("--device=999 --benchmark_filter=saxpy/driver/1024"), 1,
                        "--device=999: device 999 does not exist");
  expect_one_line_error(run_gpubench("--device=999 --info"), 1, "device 999 does not exist");
}

} // namespace
