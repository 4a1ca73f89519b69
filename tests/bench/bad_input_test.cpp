// Bad input, by kind, through the binary as a user runs it: every gpubench flag and every Google
// Benchmark flag it passes on with a value missing, empty, garbage, negative, overflowing or
// repeated; the sizes grammar; standard streams closed or full; listing with an output file.
// Each bad input gets exactly one line on stderr, starting "gpubench: ", nothing on stdout, and
// exit 2 (bad usage) or 1 (a run that could not be done); none aborts or hangs.
#include "benchmark_json.hpp"
#include "context.hpp"
#include "cuda_error.hpp"
#include "process.hpp"

#include <fmt/format.h>

#include <benchmark/benchmark.h>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace gpubench::testing {
namespace {

constexpr int exit_failure = 1;
constexpr int exit_usage = 2;

Finished gpubench(const std::vector<std::string>& args, Stream out = Stream::captured,
                  Stream err = Stream::captured) {
  std::vector<std::string> argv{GPUBENCH_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, out, err);
}

// gpubench started with `argv` (its argv[0] as given) and `environment` added to the test's,
// killed after `limit`.
Finished gpubench_as(const std::vector<std::string>& argv,
                     const std::vector<std::string>& environment = {},
                     std::chrono::seconds limit = std::chrono::seconds(20)) {
  Process process(argv, Stream::captured, Stream::captured, Group::shared,
                  {.program = GPUBENCH_BINARY, .environment = environment});
  return process.wait(limit);
}

std::string shown(const std::vector<std::string>& args) {
  std::string text;
  for (const std::string& arg : args) {
    text += " '" + arg + "'";
  }
  return text;
}

bool has_gpu() {
  try {
    return device_count() > 0;
  } catch (const CudaError&) {
    return false;
  }
}

// Ended by itself, in time, not by a signal (an abort is exit 134).
::testing::AssertionResult ended_cleanly(const Finished& run) {
  if (run.timed_out) {
    return ::testing::AssertionFailure() << "did not finish in time";
  }
  if (run.signal != 0) {
    return ::testing::AssertionFailure()
           << "ended by signal " << run.signal << "; stderr: " << run.err;
  }
  return ::testing::AssertionSuccess();
}

// A shell-safe rendering of arguments that may hold any byte, for failure messages.
std::string escaped(const std::vector<std::string>& args) {
  std::string text;
  for (const std::string& arg : args) {
    text += " '";
    for (const char c : arg.substr(0, 200)) {
      const auto b = static_cast<unsigned char>(c);
      text += b >= 0x20 && b < 0x7f ? std::string(1, c) : fmt::format("\\x{:02x}", b);
    }
    text += arg.size() > 200 ? fmt::format("...' ({} bytes)", arg.size()) : "'";
  }
  return text;
}

// Exactly one line on stderr, gpubench's, containing `text`; nothing on stdout; `exit_code`.
::testing::AssertionResult one_line(const Finished& run, int exit_code, const std::string& text) {
  if (const auto clean = ended_cleanly(run); !clean) {
    return clean;
  }
  const std::vector<std::string> lines = lines_of(run.err);
  if (run.exit_code != exit_code || lines.size() != 1 || !run.err.ends_with('\n') ||
      !lines.front().starts_with("gpubench: ") || lines.front().find(text) == std::string::npos ||
      !run.out.empty()) {
    return ::testing::AssertionFailure()
           << "exit " << run.exit_code << " (expected " << exit_code << "), " << lines.size()
           << " line(s) on stderr (expected one, 'gpubench: ...' with '" << text << "'):\n"
           << run.err << "stdout:\n"
           << run.out.substr(0, 500);
  }
  return ::testing::AssertionSuccess();
}

// Listed without complaint: exit 0, nothing on stderr, `expected` names (in order) on stdout.
::testing::AssertionResult lists(const Finished& run, const std::vector<std::string>& expected) {
  if (const auto clean = ended_cleanly(run); !clean) {
    return clean;
  }
  if (run.exit_code != 0 || !run.err.empty()) {
    return ::testing::AssertionFailure() << "exit " << run.exit_code << ", stderr:\n" << run.err;
  }
  if (!expected.empty() && lines_of(run.out) != expected) {
    return ::testing::AssertionFailure() << "listed:\n" << run.out.substr(0, 2000);
  }
  if (run.out.empty()) {
    return ::testing::AssertionFailure() << "listed nothing";
  }
  return ::testing::AssertionSuccess();
}

const std::vector<std::string> one_benchmark{"--benchmark_list_tests",
                                             "--benchmark_filter=^saxpy/driver/1024/"};

std::vector<std::string> listing(std::vector<std::string> args) {
  args.insert(args.begin(), one_benchmark.begin(), one_benchmark.end());
  return args;
}

// gpubench's own flags that take a value, as --help shows them ("--device=LIST", "--l2=...").
std::vector<std::string> own_value_flags() {
  const Finished help = gpubench({"--help"});
  std::vector<std::string> flags;
  const std::regex flag_line(R"(^  (--[a-z0-9_]+)=)");
  for (const std::string& line : lines_of(help.out)) {
    if (std::smatch match; std::regex_search(line, match, flag_line)) {
      flags.push_back(match[1]);
    }
  }
  return flags;
}

TEST(BadInput, EveryOwnFlagWithAMissingEmptyOrGarbageValue) {
  const std::vector<std::string> flags = own_value_flags();
  ASSERT_GE(flags.size(), 3U) << "--help lists --device, --l2 and --sizes at least";
  for (const std::string& flag : flags) {
    EXPECT_TRUE(one_line(gpubench({flag}), exit_usage, flag + ": needs a value")) << flag;
    EXPECT_TRUE(one_line(gpubench({flag + "="}), exit_usage, flag + "=")) << flag;
    for (const std::string garbage : {"garbage", "-", "\x01\x7f", "1,2,three", "0x10"}) {
      EXPECT_TRUE(one_line(gpubench({flag + "=" + garbage}), exit_usage, flag + "=")) << garbage;
    }
    const std::string huge(100000, '9');
    EXPECT_TRUE(one_line(gpubench({flag + "=" + huge}), exit_usage, flag + "=")) << flag;
  }
}

TEST(BadInput, DeviceNumbers) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"--device=-1", "a device number cannot be negative"},
      {"--device=-0", "a device number cannot be negative"},
      {"--device=0,-1", "a device number cannot be negative"},
      {"--device=99999999999999999999", "not a device number"},
      {"--device=2147483648", "not a device number"},
      {"--device=1.5", "not a device number"},
      {"--device=+1", "not a device number"},
      {"--device= 1", "not a device number"},
      {"--device=1 ", "not a device number"},
      {"--device=ALL", "not a device number"},
      {"--device=all,0", "not a device number"},
      {"--device=0,0", "device 0 is named twice"},
      {"--device=1,0,1", "device 1 is named twice"},
      {"--device=0,", "not a device number"},
      {"--device=,0", "not a device number"},
      {"--device=0,,1", "not a device number"},
  };
  for (const auto& [arg, text] : cases) {
    EXPECT_TRUE(one_line(gpubench({arg}), exit_usage, arg + ": " + text)) << arg;
    EXPECT_TRUE(one_line(gpubench(listing({arg})), exit_usage, arg + ": " + text)) << arg;
  }
  // Every occurrence is checked, not only the last one, which is the one used.
  EXPECT_TRUE(one_line(gpubench(listing({"--device=abc", "--device=0"})), exit_usage,
                       "--device=abc: not a device number"));
  EXPECT_TRUE(
      one_line(gpubench(listing({"--sizes=1K,", "--sizes=4K"})), exit_usage, "--sizes=1K,: "));
}

TEST(BadInput, UnknownFlags) {
  for (const std::string arg :
       {"--bogus", "--bogus=1", "-x", "-h=1", "x", "-", "--", "--info=1", "--help=yes",
        "--DEVICE=0", "--device_=0", "--benchmark_bogus", "--benchmark_bogus=1",
        "--benchmark_list_testsX", "--benchmark_filterx=a", "-benchmark_filter=a", "--benchmark_",
        "--benchmark_=1"}) {
    // Google Benchmark's own reading leaves a --benchmark_* flag it does not know unread.
    const std::string text = arg.starts_with("--benchmark_") ? "'" + arg + "': an unknown flag"
                                                             : "unknown flag '" + arg + "'";
    EXPECT_TRUE(one_line(gpubench({arg}), exit_usage, text)) << arg;
  }
}

TEST(BadInput, GoogleBenchmarkFlagsWithoutTheirValue) {
  for (const std::string flag :
       {"--benchmark_filter", "--benchmark_repetitions", "--benchmark_min_time",
        "--benchmark_min_warmup_time", "--benchmark_format", "--benchmark_out_format",
        "--benchmark_out", "--benchmark_color", "--benchmark_time_unit", "--benchmark_context",
        "--benchmark_perf_counters", "--v"}) {
    const Finished run = gpubench({flag});
    EXPECT_EQ(run.exit_code, exit_usage) << flag << ": " << run.err;
    EXPECT_TRUE(one_line(run, exit_usage, flag)) << flag;
  }
}

// Values Google Benchmark's own reading would take for true, take as something else, or reject
// after printing its usage: gpubench takes its spellings of true and false, nothing else.
TEST(BadInput, GoogleBenchmarkBooleans) {
  const std::vector<std::string> flags{
      "--benchmark_list_tests", "--benchmark_enable_random_interleaving",
      "--benchmark_report_aggregates_only", "--benchmark_display_aggregates_only",
      "--benchmark_counters_tabular"};
  for (const std::string& flag : flags) {
    for (const std::string value :
         {"maybe", "2", "-1", "tru", "yes please", "truefalse", " true"}) {
      const std::string arg = flag + "=" + value;
      EXPECT_TRUE(one_line(gpubench({arg}), exit_usage, arg + ": expected true or false")) << arg;
    }
  }
  for (const std::string& flag : flags) {
    if (flag == "--benchmark_list_tests") {
      continue; // its false values make a run: ListTests* below
    }
    for (const std::string value : {"", "=true", "=FALSE", "=yes", "=No", "=on", "=off", "=1", "=0",
                                    "=t", "=f", "=Y", "=n"}) {
      EXPECT_TRUE(lists(gpubench(listing({flag + value})), {"saxpy/driver/1024/manual_time"}))
          << flag << value;
    }
  }
}

TEST(BadInput, GoogleBenchmarkValues) {
  ScratchDir scratch;
  const std::vector<std::pair<std::string, std::string>> cases{
      {"--benchmark_format=", "expected console, json, csv"},
      {"--benchmark_format=xml", "expected console, json, csv"},
      {"--benchmark_format=JSON", "expected console, json, csv"},
      {"--benchmark_format=json,csv", "expected console, json, csv"},
      {"--benchmark_out_format=", "expected console, json, csv"},
      {"--benchmark_out_format=xml", "expected console, json, csv"},
      {"--benchmark_out_format=tabular", "expected console, json, csv"},
      {"--benchmark_time_unit=", "expected ns, us, ms, s"},
      {"--benchmark_time_unit=ps", "expected ns, us, ms, s"},
      {"--benchmark_time_unit=US", "expected ns, us, ms, s"},
      {"--benchmark_time_unit=1ms", "expected ns, us, ms, s"},
      {"--benchmark_color=", "expected auto, true or false"},
      {"--benchmark_color=sometimes", "expected auto, true or false"},
      {"--benchmark_repetitions=", "from 1 to 10000"},
      {"--benchmark_repetitions=0", "from 1 to 10000"},
      {"--benchmark_repetitions=-1", "from 1 to 10000"},
      {"--benchmark_repetitions=abc", "from 1 to 10000"},
      {"--benchmark_repetitions=1.5", "from 1 to 10000"},
      {"--benchmark_repetitions=+1", "from 1 to 10000"},
      {"--benchmark_repetitions= 1", "from 1 to 10000"},
      {"--benchmark_repetitions=2147483648", "from 1 to 10000"},
      {"--benchmark_repetitions=99999999999999999999", "from 1 to 10000"},
      {"--benchmark_repetitions=10001", "from 1 to 10000"},
      {"--benchmark_repetitions=2147483647", "from 1 to 10000"},
      // Read by Google Benchmark, which says why in its words.
      {"--v=abc", "'--v=abc': The value of flag --v is expected to be a 32-bit integer"},
      {"--v=99999999999999999999", "'--v=99999999999999999999': The value of flag --v"},
      {"--benchmark_min_time=", "expected seconds"},
      {"--benchmark_min_time=abc", "expected seconds"},
      {"--benchmark_min_time=-1", "expected seconds"},
      {"--benchmark_min_time=-1s", "expected seconds"},
      {"--benchmark_min_time=1ms", "expected seconds"},
      {"--benchmark_min_time=1m", "expected seconds"},
      {"--benchmark_min_time=s", "expected seconds"},
      {"--benchmark_min_time=0.5ss", "expected seconds"},
      {"--benchmark_min_time=0.5 s", "expected seconds"},
      {"--benchmark_min_time=nan", "expected seconds"},
      {"--benchmark_min_time=inf", "expected seconds"},
      {"--benchmark_min_time=1e999", "expected seconds"},
      {"--benchmark_min_time=86401", "at most 86400 seconds (a day)"},
      {"--benchmark_min_time=1e20", "at most 86400 seconds (a day)"},
      {"--benchmark_min_time=1e308", "at most 86400 seconds (a day)"},
      {"--benchmark_min_time=x", "--benchmark_min_time=x: "},
      {"--benchmark_min_time=0x", "--benchmark_min_time=0x: "},
      {"--benchmark_min_time=-5x", "--benchmark_min_time=-5x: a number of iterations cannot be "
                                   "negative"},
      {"--benchmark_min_time=1.5x", "--benchmark_min_time=1.5x: "},
      {"--benchmark_min_time=99999999999999999999x",
       "--benchmark_min_time=99999999999999999999x: "},
      {"--benchmark_min_warmup_time=", "expected seconds"},
      {"--benchmark_min_warmup_time=abc", "expected seconds"},
      {"--benchmark_min_warmup_time=-1", "expected seconds"},
      {"--benchmark_min_warmup_time=1x", "expected seconds"},
      {"--benchmark_min_warmup_time=nan", "expected seconds"},
      {"--benchmark_min_warmup_time=1e308", "at most 86400 seconds (a day)"},
      {"--benchmark_filter=(", "not a regular expression"},
      {"--benchmark_filter=-(", "not a regular expression"},
      {"--benchmark_filter=[", "not a regular expression"},
      {"--benchmark_filter=a{2,1}", "not a regular expression"},
      {"--benchmark_filter=\\", "not a regular expression"},
      {"--benchmark_filter=a{99999999999}", "not a regular expression"},
      {"--benchmark_context=x", "--benchmark_context=x: expected key=value pairs"},
      {"--benchmark_context=a=1,b", "--benchmark_context=a=1,b: expected key=value pairs"},
      {"--benchmark_context=a=b=c", "--benchmark_context=a=b=c: expected key=value pairs"},
      {"--benchmark_context=a=1,,b=2", "--benchmark_context=a=1,,b=2: expected key=value pairs"},
      {"--benchmark_context=a=1,", "--benchmark_context=a=1,: expected key=value pairs"},
      {"--benchmark_context==1", "--benchmark_context==1: a key is empty"},
      // Google Benchmark's JSON writer would write these raw: invalid JSON.
      {"--benchmark_context=k=\x1b[2J\x1b]0;pwned\x07",
       "--benchmark_context=k=\\x1b[2J\\x1b]0;pwned\\x07: a key or value holds a control "
       "character"},
      {"--benchmark_context=n=\xff", "--benchmark_context=n=\\xff: a key or value holds"},
      // Keys the context holds already: written twice, a reader takes the user's.
      {"--benchmark_context=gpu_name=FAKE", "the context holds gpu_name already"},
      {"--benchmark_context=run_status=complete", "the context holds run_status already"},
      {"--benchmark_context=a=1,device_0=x", "the context holds device_0 already"},
      {"--benchmark_perf_counters=CYCLES", "not supported"},
      {"--benchmark_out=", "empty file name"},
      {"--benchmark_out=" + scratch.dir(), "is a directory"},
      {"--benchmark_out=" + scratch.path("missing/out.json"), "does not exist"},
      // Root may write any directory but /proc's (`access` says yes to root everywhere).
      {"--benchmark_out=/proc/gpubench_out.json", "cannot be"},
      {"--benchmark_out=/proc/version", "cannot be written"},
      {"--benchmark_out=/dev/full", "cannot be written"},
      // The last --benchmark_out is the one written: a bad one after a good one is an error.
      {"--benchmark_out=" + scratch.path("good.json") + " --benchmark_out=" + scratch.dir(),
       "is a directory"},
  };
  for (const auto& [arg_text, text] : cases) {
    std::vector<std::string> args;
    for (std::size_t begin = 0; begin != std::string::npos;) {
      const std::size_t space = arg_text.find(" --", begin);
      args.push_back(arg_text.substr(begin, space - begin));
      begin = space == std::string::npos ? space : space + 1;
    }
    // Checked before any GPU work: the same line and exit with a GPU and without one.
    EXPECT_TRUE(one_line(gpubench(args), exit_usage, text)) << shown(args);
  }
  EXPECT_FALSE(std::filesystem::exists(scratch.path("good.json")));
}

// What gpubench accepts, Google Benchmark takes too: no second message after gpubench's check.
TEST(BadInput, GoogleBenchmarkValuesBothAccept) {
  std::vector<std::string> accepted{"--benchmark_min_time=0.5",
                                    "--benchmark_min_time=0.5s",
                                    "--benchmark_min_time=1e-3",
                                    "--benchmark_min_time=0",
                                    "--benchmark_min_time=86400",
                                    "--benchmark_min_warmup_time=0.1",
                                    "--benchmark_min_warmup_time=0.1s",
                                    "--benchmark_repetitions=10000",
                                    "--benchmark_format=csv",
                                    "--benchmark_format=json",
                                    "--benchmark_out_format=csv",
                                    "--benchmark_time_unit=ms",
                                    "--benchmark_color=auto",
                                    "--benchmark_color=yes",
                                    "--benchmark_context=a=1,b=2",
                                    "--benchmark_context=",
                                    "--v=2",
                                    "--v=-1"};
  if (std::string_view(GPUBENCH_MIN_TIME_UNIT).empty()) {
    const std::string arg = "--benchmark_min_time=10x";
    EXPECT_TRUE(one_line(gpubench({arg}), exit_usage, "need Google Benchmark 1.8")) << arg;
  } else {
    accepted.emplace_back("--benchmark_min_time=10x");
  }
  for (const std::string& arg : accepted) {
    const Finished run = gpubench(listing({arg}));
    EXPECT_TRUE(lists(run, {})) << arg;
    EXPECT_NE(run.out.find("saxpy/driver/1024/manual_time"), std::string::npos) << arg;
  }
}

// Google Benchmark's flags as its own usage lists them, and --benchmark_perf_counters, which
// 1.7 leaves out of it: a flag a later version adds is covered too.
std::vector<std::string> benchmark_flags() {
  std::FILE* const usage = std::tmpfile();
  std::fflush(stdout);
  const int terminal = dup(STDOUT_FILENO);
  dup2(fileno(usage), STDOUT_FILENO);
  benchmark::PrintDefaultHelp();
  std::fflush(stdout);
  dup2(terminal, STDOUT_FILENO);
  close(terminal);
  std::rewind(usage);
  std::string text;
  for (int c = std::fgetc(usage); c != EOF; c = std::fgetc(usage)) {
    text += static_cast<char>(c);
  }
  std::fclose(usage);
  std::vector<std::string> flags{"--benchmark_perf_counters"};
  const std::regex flag(R"(\[(--[a-z_]+)[=\]])");
  for (auto match = std::sregex_iterator(text.begin(), text.end(), flag);
       match != std::sregex_iterator(); ++match) {
    if (std::find(flags.begin(), flags.end(), (*match)[1]) == flags.end()) {
      flags.push_back((*match)[1]);
    }
  }
  return flags;
}

// Google Benchmark reads each of its flags' defaults from a variable named as the flag
// upper-cased, as its library loads: each is checked as that flag given first, and a refusal is
// one line naming the variable, on a listing and on a run alike (before any GPU work).
TEST(BadInput, GoogleBenchmarkEnvironment) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"BENCHMARK_REPETITIONS=0", "--benchmark_repetitions=0: expected a whole number from 1 to "
                                  "10000 (from the environment variable BENCHMARK_REPETITIONS)"},
      {"BENCHMARK_REPETITIONS=-1", "(from the environment variable BENCHMARK_REPETITIONS)"},
      {"BENCHMARK_REPETITIONS=abc", "(from the environment variable BENCHMARK_REPETITIONS)"},
      {"BENCHMARK_REPETITIONS=99999999999",
       "(from the environment variable BENCHMARK_REPETITIONS)"},
      {"BENCHMARK_MIN_TIME=abc", "(from the environment variable BENCHMARK_MIN_TIME)"},
      {"BENCHMARK_MIN_TIME=1e20", "at most 86400 seconds (a day) (from the environment variable "
                                  "BENCHMARK_MIN_TIME)"},
      {"BENCHMARK_MIN_WARMUP_TIME=inf", "(from the environment variable BENCHMARK_MIN_WARMUP_TIME)"},
      {"BENCHMARK_PERF_COUNTERS=CYCLES", "not supported (from the environment variable "
                                         "BENCHMARK_PERF_COUNTERS)"},
      {"BENCHMARK_CONTEXT=a", "(from the environment variable BENCHMARK_CONTEXT)"},
      {"BENCHMARK_CONTEXT=gpu_name=FAKE", "the context holds gpu_name already"},
      {"BENCHMARK_OUT=/nonexistent/x", "directory /nonexistent does not exist (from the "
                                       "environment variable BENCHMARK_OUT)"},
      {"BENCHMARK_FORMAT=xml", "(from the environment variable BENCHMARK_FORMAT)"},
      {"BENCHMARK_TIME_UNIT=ps", "(from the environment variable BENCHMARK_TIME_UNIT)"},
      {"BENCHMARK_COLOR=", "(from the environment variable BENCHMARK_COLOR)"},
      {"BENCHMARK_LIST_TESTS=maybe", "(from the environment variable BENCHMARK_LIST_TESTS)"},
      {"BENCHMARK_FILTER=(", "(from the environment variable BENCHMARK_FILTER)"},
  };
  for (const auto& [variable, text] : cases) {
    EXPECT_TRUE(one_line(gpubench_as({"gpubench", "--benchmark_list_tests"}, {variable}),
                         exit_usage, text))
        << variable;
    EXPECT_TRUE(one_line(gpubench_as({"gpubench"}, {variable}), exit_usage, text)) << variable;
  }
}

// Each variable is the flag, and the command line's flag wins over it.
TEST(BadInput, GoogleBenchmarkEnvironmentIsTheFlag) {
  const std::vector<std::string> one{"saxpy/driver/1024/manual_time"};
  EXPECT_TRUE(lists(gpubench_as({"gpubench"}, {"BENCHMARK_LIST_TESTS=true",
                                                "BENCHMARK_FILTER=^saxpy/driver/1024/"}),
                    one));
  EXPECT_TRUE(lists(gpubench_as({"gpubench", "--benchmark_list_tests",
                                 "--benchmark_filter=^saxpy/driver/1024/"},
                                {"BENCHMARK_FILTER=^copy/"}),
                    one));
  EXPECT_TRUE(lists(gpubench_as({"gpubench", "--benchmark_list_tests", "--benchmark_repetitions=2",
                                 "--benchmark_filter=^saxpy/driver/1024/"},
                                {"BENCHMARK_REPETITIONS=3", "BENCHMARK_MIN_TIME=0.5",
                                 "BENCHMARK_COLOR=false", "BENCHMARK_CONTEXT=rack=7"}),
                    one));
}

// Every Google Benchmark flag's variable, set to a value no flag takes or to one that is fine: a
// clean listing or one line naming the variable, never a line of Google Benchmark's own.
TEST(BadInput, EveryGoogleBenchmarkVariable) {
  for (const std::string& flag : benchmark_flags()) {
    if (flag == "--v") {
      continue; // V: VariableVIsIgnored
    }
    std::string variable = flag.substr(2);
    std::transform(variable.begin(), variable.end(), variable.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    for (const std::string value : {"garbage\x01", "-1", "1e999", "99999999999", "a=1,b"}) {
      const Finished run = gpubench_as(
          {"gpubench", "--benchmark_list_tests", "--benchmark_filter=^saxpy/driver/1024/"},
          {variable + "=" + value});
      if (run.exit_code == 0) {
        EXPECT_TRUE(lists(run, {})) << variable << "=" << value;
      } else {
        EXPECT_TRUE(one_line(run, exit_usage, "(from the environment variable " + variable + ")"))
            << variable << "=" << value;
      }
    }
  }
}

// V, Google Benchmark's --v, is too common a name (make's V=1) to read as a flag: ignored.
TEST(BadInput, VariableVIsIgnored) {
  for (const std::string variable : {"V=abc", "V=1", "V=99999999999", "V="}) {
    EXPECT_TRUE(lists(gpubench_as({"gpubench", "--benchmark_list_tests",
                                   "--benchmark_filter=^saxpy/driver/1024/"},
                                  {variable}),
                      {"saxpy/driver/1024/manual_time"}))
        << variable;
    EXPECT_TRUE(one_line(gpubench_as({"gpubench", "--sizes=bad"}, {variable}), exit_usage,
                         "--sizes=bad: "))
        << variable;
    EXPECT_TRUE(lists(gpubench_as({"gpubench", "--describe"}, {variable}), {})) << variable;
  }
}

// A symbolic link is followed to the name it leads to: a dangling one is written through (the
// check leaves nothing behind), a loop is refused as one.
TEST(BadInput, OutputThroughSymbolicLinks) {
  ScratchDir scratch;
  std::filesystem::create_symlink(scratch.path("target.json"), scratch.path("dangling"));
  std::filesystem::create_symlink("loop_b", scratch.path("loop_a"));
  std::filesystem::create_symlink("loop_a", scratch.path("loop_b"));
  EXPECT_TRUE(one_line(gpubench({"--benchmark_out=" + scratch.path("loop_a")}), exit_usage,
                       "cannot be written: Too many levels of symbolic links"));
  EXPECT_TRUE(one_line(gpubench({"--benchmark_out=" + scratch.path(std::string(300, 'c'))}),
                       exit_usage, "cannot be written: File name too long"));
  const std::string dangling = "--benchmark_out=" + scratch.path("dangling");
  if (!has_gpu()) {
    // Accepted: the run stops at the missing device.
    EXPECT_TRUE(one_line(gpubench({dangling}), exit_failure, "no CUDA device"));
    EXPECT_FALSE(std::filesystem::exists(scratch.path("target.json")));
  } else {
    const Finished run = gpubench({dangling, "--benchmark_filter=^saxpy/driver/1024/"});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    const BenchmarkJson json = read_benchmark_json(scratch.path("target.json"));
    EXPECT_TRUE(json.valid) << json.problem;
    EXPECT_EQ(json.benchmarks.size(), 1U);
  }
  EXPECT_TRUE(std::filesystem::is_symlink(scratch.path("dangling")));
  // Nothing else: neither the check's probe nor a run's temporary file is left beside them.
  std::set<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator(scratch.dir())) {
    left.insert(entry.path().filename().string());
  }
  std::set<std::string> expected{"dangling", "loop_a", "loop_b"};
  if (has_gpu()) {
    expected.insert("target.json");
  }
  EXPECT_EQ(left, expected);
}

// With BENCHMARK_OUT and no --benchmark_out, gpubench writes the file, as it does the flag's:
// Google Benchmark never writes one of its own.
TEST(BadInput, BenchmarkOutFromTheEnvironmentIsGpubenchsFile) {
  if (!has_gpu()) {
    GTEST_SKIP() << "no CUDA device: GoogleBenchmarkEnvironment covers the check";
  }
  ScratchDir scratch;
  const Finished run = gpubench_as({"gpubench", "--benchmark_filter=^saxpy/driver/1024/"},
                                   {"BENCHMARK_OUT=" + scratch.path("run.json")},
                                   std::chrono::seconds(120));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const BenchmarkJson json = read_benchmark_json(scratch.path("run.json"));
  ASSERT_TRUE(json.valid) << json.problem;
  EXPECT_EQ(json.context.at("run_status"), "complete");
  EXPECT_EQ(json.benchmarks.size(), 1U);
}

// A size past device memory is skipped with its reason, however large: four buffers of 2^62
// bytes are more than any GPU holds, not 4 x 2^62 wrapped to 0.
TEST(BadInput, SizePastMemoryIsSkipped) {
  if (!has_gpu()) {
    GTEST_SKIP() << "no CUDA device";
  }
  ScratchDir scratch;
  const Finished run = gpubench({"--benchmark_filter=^copy/HtoD/pinned/async/",
                                 "--sizes=4K,4294967296G",
                                 "--benchmark_out=" + scratch.path("run.json")});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const BenchmarkJson json = read_benchmark_json(scratch.path("run.json"));
  ASSERT_TRUE(json.valid) << json.problem;
  ASSERT_EQ(json.benchmarks.size(), 2U);
  EXPECT_FALSE(json.benchmarks[0].error) << json.benchmarks[0].message;
  EXPECT_TRUE(json.benchmarks[1].message.starts_with(
      "skipped: 4194304TiB copies: 4 x 4194304TiB of device memory needed"))
      << json.benchmarks[1].message;
}

// Every benchmark selected skipped (here: a size no GPU holds): nothing was measured, which is
// no success: exit 1 and the last line says why.
TEST(BadInput, EveryBenchmarkSkippedIsNoSuccess) {
  if (!has_gpu()) {
    GTEST_SKIP() << "no CUDA device";
  }
  ScratchDir scratch;
  const Finished run =
      gpubench({"--benchmark_filter=^copy/HtoD/pinned/async/", "--sizes=4294967296G",
                "--benchmark_out=" + scratch.path("run.json")});
  EXPECT_TRUE(ended_cleanly(run));
  EXPECT_EQ(run.exit_code, exit_failure) << run.err;
  const std::vector<std::string> lines = lines_of(run.err);
  ASSERT_FALSE(lines.empty());
  EXPECT_TRUE(lines.back().starts_with("gpubench: every benchmark selected was skipped, so "
                                       "nothing was measured: 4194304TiB copies: 4 x"))
      << run.err;
  const BenchmarkJson json = read_benchmark_json(scratch.path("run.json"));
  ASSERT_TRUE(json.valid) << json.problem;
  EXPECT_EQ(json.benchmarks.size(), 1U);
}

// Every Google Benchmark flag with a value missing, empty, garbage, negative, not finite or
// overflowing is taken (a listing, nothing on stderr) or refused in one line naming it: never
// Google Benchmark's usage (exit 0), an abort or a hang. --benchmark_list_tests is left out: its
// false values make a run (ListTests* below).
TEST(BadInput, EveryGoogleBenchmarkFlagWithAMissingEmptyOrGarbageValue) {
  const std::vector<std::string> flags = benchmark_flags();
  ASSERT_GE(flags.size(), 17U) << "Google Benchmark 1.7 has 17 flags";
  for (const std::string& flag : flags) {
    if (flag == "--benchmark_list_tests") {
      continue;
    }
    for (const std::string value : {"", "=", "=garbage", "=-1", "=0", "=inf", "=1e999",
                                    "=99999999999999999999", "=\x01\x7f", "=a=1,b", "=-5x"}) {
      const std::vector<std::string> args = listing({flag + value});
      const Finished run = gpubench(args);
      if (run.exit_code == 0) {
        EXPECT_TRUE(lists(run, {})) << escaped(args);
      } else {
        // A filter that matches nothing is a run that could not be done, not bad usage.
        const bool filter = flag == "--benchmark_filter";
        EXPECT_TRUE(one_line(run, filter && !value.empty() ? exit_failure : exit_usage, flag))
            << escaped(args);
      }
    }
  }
}

TEST(BadInput, SizesGrammar) {
  const std::vector<std::pair<std::string, std::string>> bad{
      {"", "empty size list"},
      {" ", "empty size list"},
      {",", "empty entry"},
      {"1K,", "empty entry"},
      {"1K, ", "empty entry"},
      {",1K", "empty entry"},
      {"1K,,2K", "empty entry"},
      {"1K..1G:x", "step"},
      {"1K..1G:x99999999999999999999", "step"},
      {"1K..1G:x1", "step"},
      {"1K..1G:x0", "step"},
      {"1K..1G:", "step"},
      {"1K..1G:y2", "step"},
      {"1K..1G:x2.5", "step"},
      {"1K..1G:x-2", "step"},
      {"1G..1K", "start is above its end"},
      {"1K...1G", "not a number"},
      {"1..2..3", "bad size '1..2..3': a range has one '..'"},
      {"..1K", "empty"},
      {"1K..", "empty"},
      {"0", "zero"},
      {"0..4K", "zero"},
      {"-1K", "negative"},
      {"1.5K", "unit"},
      {"4T", "unit"},
      {"K", "not a number"},
      {"lots", "not a number"},
      {"99999999999999999999", "too large"},
      {"17179869184G", "too large"},     // 2^64 bytes: past size_t
      {"17179869183G", "too large"},     // fits size_t, not a benchmark argument (int64)
      {"1K..17179869183G", "too large"}, // a range reaching past int64
  };
  for (const auto& [sizes, text] : bad) {
    const std::string arg = "--sizes=" + sizes;
    EXPECT_TRUE(one_line(gpubench(listing({arg})), exit_usage, arg + ": ")) << arg;
    EXPECT_TRUE(one_line(gpubench(listing({arg})), exit_usage, text)) << arg;
  }

  const std::vector<std::string> copy_listing{"--benchmark_list_tests",
                                              "--benchmark_filter=^copy/HtoD/pinned/async/"};
  const auto listed = [&](const std::string& sizes) {
    std::vector<std::string> args = copy_listing;
    args.push_back("--sizes=" + sizes);
    return gpubench(args);
  };
  const auto names = [](const std::vector<std::string>& bytes) {
    std::vector<std::string> all;
    for (const std::string& b : bytes) {
      all.push_back("copy/HtoD/pinned/async/" + b + "/manual_time");
    }
    return all;
  };
  EXPECT_TRUE(lists(listed("1K..4K"), names({"1024", "2048", "4096"})));
  EXPECT_TRUE(lists(listed(" 4K , 4096,4K "), names({"4096"})));
  EXPECT_TRUE(lists(listed("1K..1G:x99999999"), names({"1024"})));
  EXPECT_TRUE(lists(listed("8589934591G"), names({"9223372035781033984"}))) << "2^63 - 2^30";
  // The last --sizes is the one used.
  {
    std::vector<std::string> args = copy_listing;
    args.insert(args.end(), {"--sizes=4K", "--sizes=8K"});
    EXPECT_TRUE(lists(gpubench(args), names({"8192"})));
  }
}

// Ten thousand sizes list within the test's 30 s and say nothing on stderr (Google Benchmark
// warns about every case with more than 100 instances).
TEST(BadInput, TenThousandSizesListPromptly) {
  std::string sizes;
  for (int i = 1; i <= 10000; ++i) {
    sizes.append(i > 1 ? "," : "").append(std::to_string(i));
  }
  Process process({GPUBENCH_BINARY, "--benchmark_list_tests",
                   "--benchmark_filter=^copy/HtoD/pinned/async/", "--sizes=" + sizes});
  const Finished run = process.wait(std::chrono::seconds(30));
  EXPECT_TRUE(lists(run, {}));
  EXPECT_EQ(lines_of(run.out).size(), 10000U);
}

// --benchmark_out naming the file stdout or stderr is sent to: the JSON, written at the end,
// would truncate the console table or land in the middle of it. Refused before anything runs,
// the file left as the shell made it.
TEST(BadInput, OutputFileThatStandardOutputOrErrorGoesToIsRefused) {
  ScratchDir scratch;
  const std::string file = scratch.path("run.json");
  const std::string history = "an earlier run's lines\n";
  for (const auto& [redirection, stream] :
       {std::pair{std::string(">"), "standard output"}, std::pair{std::string(">>"), "standard output"},
        std::pair{std::string("2>>"), "standard error"}}) {
    std::ofstream(file) << history;
    const Finished run = run_process(
        {"/bin/sh", "-c",
         fmt::format("exec \"$0\" --benchmark_filter=^saxpy/driver/1024/ "
                     "--benchmark_out=\"$1\" {} \"$1\"",
                     redirection),
         GPUBENCH_BINARY, file});
    const std::string what = redirection + " " + stream;
    EXPECT_TRUE(ended_cleanly(run)) << what;
    EXPECT_EQ(run.exit_code, exit_usage) << what;
    const std::string line = fmt::format("gpubench: --benchmark_out={}: is the file {} goes to; "
                                         "name another for the JSON\n",
                                         file, stream);
    if (redirection == "2>>") {
      EXPECT_EQ(read_file(file), history + line) << what;
    } else {
      EXPECT_EQ(run.err, line) << what;
      EXPECT_EQ(read_file(file), redirection == ">" ? "" : history) << what;
    }
  }
}

// A FIFO named as the output is not opened before the run: its reader, waiting for the JSON,
// is not handed an end of file first.
TEST(BadInput, AFifoOutputKeepsItsReader) {
  ScratchDir scratch;
  const std::string fifo = scratch.path("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = read_file(fifo); });
  const Finished run = gpubench({"--benchmark_filter=^nothing_is_called_this$",
                                 "--benchmark_out=" + fifo});
  EXPECT_TRUE(ended_cleanly(run));
  EXPECT_EQ(run.exit_code, exit_failure) << run.err;
  // The reader is still there to be written to; where it is not, its end of file came first.
  const int fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
  EXPECT_GE(fd, 0) << "the reader was gone: gpubench opened and closed the FIFO";
  if (fd >= 0) {
    EXPECT_EQ(write(fd, "the JSON", 8), 8);
    close(fd);
  } else {
    close(open(fifo.c_str(), O_RDWR)); // lets a reader still in open() through
  }
  reader.join();
  EXPECT_EQ(received, fd >= 0 ? "the JSON" : "");
}

// A filter whose automaton visits thousands of states per byte, over many sizes: within its
// stated limits each, but minutes of matching together. Refused in one line once matching
// passes its bound, in bounded time.
TEST(HostileInput, ACostlyFilterOverManySizesIsALimitStated) {
  const std::string filter = "(.?){255}(.?){255}(.?){255}(.?){255}z";
  std::string sizes = "1";
  for (int i = 2; i <= 2000; ++i) {
    sizes += fmt::format(",{}", i);
  }
  const auto begin = std::chrono::steady_clock::now();
  const Finished run = gpubench_as(
      {"gpubench", "--benchmark_list_tests", "--benchmark_filter=" + filter, "--sizes=" + sizes},
      {}, std::chrono::seconds(120));
  EXPECT_TRUE(one_line(run, exit_usage,
                       "--benchmark_filter=" + filter + ": matching it visited more than"));
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(60));
}

// Output that could not be written is an error (exit 1, one line where stderr can take it);
// nothing aborts, nor ends by SIGPIPE, when stderr is closed, full or a pipe nobody reads; an
// error keeps its own exit code.
TEST(BadInput, StandardStreamsClosedFullOrBroken) {
  struct Case {
    std::vector<std::string> args;
    int exit_code;    // where stdout and stderr work
    std::string text; // its line, if it has one
  };
  const std::vector<Case> cases{
      {listing({}), 0, ""},
      {{"--help"}, 0, ""},
      {{"--describe"}, 0, ""},
      {{"--device=abc"}, exit_usage, "--device=abc: not a device number"},
      {{"--benchmark_list_tests", "--benchmark_filter=^nothing_is_called_this$"},
       exit_failure,
       "nothing_is_called_this"},
  };
  for (const Case& c : cases) {
    const std::string what = shown(c.args);
    const bool writes_stdout = c.exit_code == 0;
    // As is: the baseline.
    const Finished plain = gpubench(c.args);
    if (writes_stdout) {
      EXPECT_TRUE(ended_cleanly(plain) && plain.exit_code == 0 && plain.err.empty() &&
                  !plain.out.empty())
          << what << ": " << plain.err;
    } else {
      EXPECT_TRUE(one_line(plain, c.exit_code, c.text)) << what;
    }
    // stdout full, closed or a pipe nobody reads: what was to be printed is lost.
    for (const Stream out : {Stream::full, Stream::closed, Stream::broken}) {
      const Finished run = gpubench(c.args, out);
      if (writes_stdout) {
        EXPECT_TRUE(one_line(run, exit_failure, "standard output could not be written")) << what;
      } else {
        EXPECT_TRUE(one_line(run, c.exit_code, c.text)) << what;
      }
    }
    // stderr closed, full or a pipe nobody reads: the same exit, and no abort.
    for (const Stream err : {Stream::full, Stream::closed, Stream::broken}) {
      const Finished run = gpubench(c.args, Stream::captured, err);
      EXPECT_TRUE(ended_cleanly(run)) << what;
      EXPECT_EQ(run.exit_code, c.exit_code) << what;
    }
    // Both: no abort, and a non-zero exit where output was lost.
    const Finished both = gpubench(c.args, Stream::full, Stream::closed);
    EXPECT_TRUE(ended_cleanly(both)) << what;
    EXPECT_EQ(both.exit_code, writes_stdout ? exit_failure : c.exit_code) << what;
  }
}

TEST(BadInput, ListingNeverTouchesTheOutputFile) {
  ScratchDir scratch;
  const std::string existing = scratch.path("existing.json");
  const std::string contents = "{\"kept\": true}\n";
  std::ofstream(existing) << contents;
  struct stat before {};
  ASSERT_EQ(stat(existing.c_str(), &before), 0);
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--benchmark_out=" + existing},
        std::vector<std::string>{"--benchmark_out=" + existing, "--benchmark_out_format=csv"},
        std::vector<std::string>{"--benchmark_list_tests=yes", "--benchmark_out=" + existing},
        std::vector<std::string>{"--benchmark_out=" + scratch.path("new.json")}}) {
    EXPECT_TRUE(lists(gpubench(listing(extra)), {"saxpy/driver/1024/manual_time"})) << shown(extra);
  }
  // BENCHMARK_OUT is --benchmark_out given first.
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{}, std::vector<std::string>{"--benchmark_out=" + existing}}) {
    for (const std::string& out : {existing, scratch.path("new.json")}) {
      std::vector<std::string> argv = listing(extra);
      argv.insert(argv.begin(), "gpubench");
      EXPECT_TRUE(lists(gpubench_as(argv, {"BENCHMARK_OUT=" + out}),
                        {"saxpy/driver/1024/manual_time"}))
          << "BENCHMARK_OUT=" << out << shown(extra);
    }
  }
  struct stat after {};
  ASSERT_EQ(stat(existing.c_str(), &after), 0);
  EXPECT_EQ(read_file(existing), contents);
  EXPECT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
  EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  EXPECT_FALSE(std::filesystem::exists(scratch.path("new.json")));
}

// --describe, --info and a listing each print in place of a run, and --describe and --info
// write no --benchmark_out: given together, one line and exit 2 before any GPU work, not all but
// one ignored (an output file never written, exit 0).
TEST(BadInput, ModesGivenTogetherAreRefused) {
  ScratchDir scratch;
  const std::string out = "--benchmark_out=" + scratch.path("facts.json");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--describe", out}, "--describe prints on standard output and writes no file"},
      {{"--info", out}, "--info prints on standard output and writes no file"},
      {{"--describe", "--info"}, "--describe and --info: each prints something in place of a run"},
      {{"--info", "--benchmark_list_tests"}, "--info and --benchmark_list_tests: each prints"},
      {{"--benchmark_list_tests=yes", "--describe"}, "--describe and --benchmark_list_tests: "}};
  for (const auto& [args, text] : cases) {
    EXPECT_TRUE(one_line(gpubench(args), exit_usage, text)) << shown(args);
  }
  EXPECT_FALSE(std::filesystem::exists(scratch.path("facts.json")));
  // A job's BENCHMARK_OUT names where its runs write: --describe answers beside it, and leaves
  // the file unwritten.
  const Finished described = gpubench_as({GPUBENCH_BINARY, "--describe"},
                                         {"BENCHMARK_OUT=" + scratch.path("facts.json")});
  EXPECT_EQ(described.exit_code, 0) << described.err;
  EXPECT_TRUE(described.out.starts_with("{")) << described.out.substr(0, 200);
  EXPECT_FALSE(std::filesystem::exists(scratch.path("facts.json")));
}

// Google Benchmark's spellings of true list, without a GPU; the last occurrence decides.
TEST(BadInput, ListTestsTakesGoogleBenchmarksBooleans) {
  for (const std::vector<std::string>& flags :
       {std::vector<std::string>{"--benchmark_list_tests=yes"},
        std::vector<std::string>{"--benchmark_list_tests=TRUE"},
        std::vector<std::string>{"--benchmark_list_tests=on"},
        std::vector<std::string>{"--benchmark_list_tests=1"},
        std::vector<std::string>{"--benchmark_list_tests="},
        std::vector<std::string>{"--benchmark_list_tests=false", "--benchmark_list_tests"}}) {
    std::vector<std::string> args = flags;
    args.emplace_back("--benchmark_filter=^saxpy/driver/1024/");
    EXPECT_TRUE(lists(gpubench(args), {"saxpy/driver/1024/manual_time"})) << shown(flags);
  }
}

// The last occurrence decides: listing then =false is a run, which needs a GPU.
TEST(BadInput, ListTestsThenFalseIsARun) {
  const std::vector<std::string> args{"--benchmark_list_tests", "--benchmark_list_tests=false",
                                      "--benchmark_filter=^saxpy/driver/1024/",
                                      "--benchmark_min_time=0.01"};
  const Finished run = gpubench(args);
  if (!has_gpu()) {
    EXPECT_TRUE(one_line(run, exit_failure, "no CUDA device: "));
    return;
  }
  EXPECT_TRUE(ended_cleanly(run));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("Iterations"), std::string::npos) << "a run, not a listing:\n" << run.out;
}

// --- Hostile input: each finding by name, then a generated corpus of the same categories. ---

// A filter longer than gpubench takes is refused in one line naming the limit, never echoed;
// the longest one taken lists (Google Benchmark's std::regex overflowed the stack on these).
TEST(HostileInput, FilterLengthIsALimitStated) {
  for (const std::size_t length : {1025UL, 19000UL, 100000UL}) {
    const std::string filter(length, 'a');
    const Finished listed = gpubench({"--benchmark_list_tests", "--benchmark_filter=" + filter});
    EXPECT_TRUE(one_line(listed, exit_usage, "more than the 1024 a filter may have")) << length;
    EXPECT_LT(listed.err.size(), 200U) << "the filter is not repeated";
    EXPECT_TRUE(one_line(gpubench({"--benchmark_filter=" + filter}), exit_usage, "1024"));
  }
  std::string longest = "^saxpy/driver/1024/";
  while (longest.size() + 2 <= 1024) {
    longest += "|#";
  }
  longest.resize(1024, '#');
  EXPECT_TRUE(lists(gpubench({"--benchmark_list_tests", "--benchmark_filter=" + longest}),
                    {"saxpy/driver/1024/manual_time"}));
  // As deep as 1024 characters can nest.
  const std::string deep = std::string(500, '(') + "saxpy/driver/1024/" + std::string(500, ')');
  EXPECT_TRUE(lists(gpubench({"--benchmark_list_tests", "--benchmark_filter=^" + deep}),
                    {"saxpy/driver/1024/manual_time"}));
}

// Whether `text` is whole UTF-8 characters.
bool whole_utf8(const std::string& text) {
  std::size_t continuations = 0;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte & 0xC0U) == 0x80U) {
      if (continuations-- == 0) {
        return false;
      }
    } else if (continuations != 0) {
      return false;
    } else {
      continuations = byte >= 0xF0U ? 3 : byte >= 0xE0U ? 2 : byte >= 0xC0U ? 1 : 0;
    }
  }
  return continuations == 0;
}

// A value of 100 000 characters repeated in its error is shown by the line's start, which names
// the flag, and its end, which names the problem: one line of about 2000 bytes, cut between whole
// characters.
TEST(HostileInput, LongValuesKeepTheLineShort) {
  std::string sizes;
  while (sizes.size() < 100000) {
    sizes += "4K,";
  }
  std::string accents;
  while (accents.size() < 100000) {
    accents += "\xc3\xa9"; // é
  }
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--sizes=" + sizes + "x"}, "bad size 'x': not a number"},
      {{"--sizes=" + accents}, "': not a number"},
      {{"--" + accents}, "' (see --help)"}};
  for (const auto& [args, problem] : cases) {
    const Finished run = gpubench(listing(args));
    EXPECT_TRUE(one_line(run, exit_usage, args.front().substr(0, 20))) << escaped(args);
    EXPECT_TRUE(run.err.ends_with(problem + "\n"))
        << run.err.substr(run.err.size() > 100 ? run.err.size() - 100 : 0);
    EXPECT_NE(run.err.find(" bytes left out ...] "), std::string::npos);
    EXPECT_LT(run.err.size(), 2100U);
    EXPECT_TRUE(whole_utf8(run.err)) << escaped(args);
  }
}

// Shapes a backtracking matcher never finishes are matched in bounded time, with the right
// answer.
TEST(HostileInput, NestedQuantifiersAnswerPromptly) {
  const std::vector<std::pair<std::string, std::size_t>> filters{
      {"(a+)+$", 0},
      {"((a*)*)*#", 0},
      {"(.*)*x$", 0},
      {".*.*.*.*.*.*.*#", 0},
      {"(.|.|.|.){8}x$", 0},
      {"((.*)*)*/1024/manual_time/x$", 0},
      {"^((s|a|x|p|y)+)+/driver/1024/", 1}};
  for (const auto& [filter, listed] : filters) {
    const auto begin = std::chrono::steady_clock::now();
    const Finished run =
        gpubench_as({"gpubench", "--benchmark_list_tests", "--benchmark_filter=" + filter}, {},
                    std::chrono::seconds(10));
    EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(5)) << filter;
    if (listed == 0) {
      EXPECT_TRUE(one_line(run, exit_failure, "matches no benchmark")) << filter;
    } else {
      EXPECT_TRUE(lists(run, {})) << filter;
      EXPECT_EQ(lines_of(run.out).size(), listed) << filter;
    }
  }
  // Matched, not refused: '.*' twice lists what it selects.
  EXPECT_TRUE(lists(gpubench({"--benchmark_list_tests", "--benchmark_filter=^saxpy/d.*.*r/1024/"}),
                    {"saxpy/driver/1024/manual_time"}));
}

// 32 devices list in under 2 s; the device list and the benchmarks have limits, each one line.
TEST(HostileInput, DeviceCountIsALimitStated) {
  std::string devices = "--device=0";
  for (int d = 1; d < 32; ++d) {
    devices += fmt::format(",{}", d);
  }
  // Without a GPU the names list from the flags alone; a machine with GPUs checks the devices,
  // and one it lacks is one line.
  const bool all_present = !has_gpu() || device_count() >= 32;
  if (all_present) {
    // The better of two tries: the machine running the tests may be busy.
    auto fastest = std::chrono::steady_clock::duration::max();
    for (int attempt = 0; attempt < 2; ++attempt) {
      const auto begin = std::chrono::steady_clock::now();
      const Finished run = gpubench({"--benchmark_list_tests", devices});
      fastest = std::min(fastest, std::chrono::steady_clock::now() - begin);
      ASSERT_TRUE(lists(run, {}));
      // The size sweep for the representative pairs, every other pair and every pattern at the
      // largest size.
      for (const char* name :
           {"peer/ce/read/0to31/4/", "peer/ce/read/31to0/1073741824/", "peer/ce/read/1to0/4/",
            "peer/sm/write/31to30/1073741824/", "peer/ce/read/allto30/1073741824/",
            "peer/sm/write/7toall/1073741824/", "peer/ce/write/bisect/1073741824/"}) {
        EXPECT_NE(run.out.find(std::string(name) + "manual_time\n"), std::string::npos) << name;
      }
      for (const char* name : {"peer/ce/read/31to30/4/", "peer/ce/bidir/bisect/"}) {
        EXPECT_EQ(run.out.find(name), std::string::npos) << name;
      }
      // --sizes named: every pair sweeps.
      const Finished sized = gpubench({"--benchmark_list_tests", devices, "--sizes=4,1K"});
      EXPECT_NE(sized.out.find("peer/ce/read/31to30/4/manual_time\n"), std::string::npos);
      EXPECT_NE(sized.out.find("peer/ce/read/bisect/1024/manual_time\n"), std::string::npos);
    }
    EXPECT_LT(fastest, std::chrono::seconds(2));
  } else {
    EXPECT_TRUE(one_line(gpubench({"--benchmark_list_tests", devices}), 1, "does not exist"));
  }

  std::string too_many = devices;
  for (int d = 32; d < 65; ++d) {
    too_many += fmt::format(",{}", d);
  }
  EXPECT_TRUE(one_line(gpubench({"--benchmark_list_tests", too_many}), exit_usage,
                       "--device: more than the 64 devices"));
  // 20000 sizes of every copy case pass the limit on one device, as 10000 do on four.
  const int size_count = all_present ? 10000 : 20000;
  std::string sizes = "--sizes=1";
  for (int i = 2; i <= size_count; ++i) {
    sizes += fmt::format(",{}", i);
  }
  EXPECT_TRUE(one_line(gpubench({"--benchmark_list_tests",
                                 all_present ? "--device=0,1,2,3" : "--device=0", sizes}),
                       exit_usage, "more than the 500000 benchmarks"));
}

// A value holding a newline, an escape sequence or bytes that are not UTF-8 stays one line,
// shown escaped.
TEST(HostileInput, ControlCharactersAreEscaped) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"--device=1\n2", "--device=1\\x0a2"},
      {"--bogus=\x1b[31mred\r\nsecond line", "--bogus=\\x1b[31mred\\x0d\\x0asecond line"},
      {"--sizes=4K\x01\x02", "--sizes=4K\\x01\\x02"},
      {"--l2=\xff\xfe", "--l2=\\xff\\xfe"},
      {"--l2=caf\xc3\xa9", "--l2=caf\xc3\xa9"}, // UTF-8 is shown as it is
      {"--l2=\xc2\x85", "--l2=\\xc2\\x85"},     // NEL, a C1 control
      {"--benchmark_filter=(\n", "--benchmark_filter=(\\x0a"},
      {"--benchmark_out=/nonexistent\n/x", "--benchmark_out=/nonexistent\\x0a/x"},
      {"--benchmark_context=k=\x1b[2J", "--benchmark_context=k=\\x1b[2J"},
  };
  for (const auto& [arg, shown_as] : cases) {
    const Finished run = gpubench({arg});
    EXPECT_TRUE(one_line(run, exit_usage, shown_as)) << escaped({arg});
  }
  // Listing names a filter that matches nothing the same way.
  EXPECT_TRUE(one_line(gpubench({"--benchmark_list_tests", "--benchmark_filter=x\ny"}),
                       exit_failure, "--benchmark_filter=x\\x0ay: matches no benchmark"));
}

// argv[0] is the program's name, whatever it says.
TEST(HostileInput, ProgramNameIsNeverAFlag) {
  for (const std::string name :
       {"--benchmark_out=/tmp/gpubench_argv0.json", "--benchmark_list_tests=false",
        "--benchmark_filter=nothing", "--benchmark_min_time=5", "--device=7", "--help", "",
        "--benchmark_out", "gpubench\nsecond"}) {
    const Finished run =
        gpubench_as({name, "--benchmark_list_tests", "--benchmark_filter=^saxpy/driver/1024/"});
    EXPECT_TRUE(lists(run, {"saxpy/driver/1024/manual_time"})) << escaped({name});
  }
  EXPECT_FALSE(std::filesystem::exists("/tmp/gpubench_argv0.json"));
}

// Locale, CUDA variables and garbage in them: a listing lists, a run says in one line why not.
TEST(HostileInput, Environment) {
  const std::vector<std::vector<std::string>> environments{
      {"LC_ALL=xx_YY.garbage"},
      {"LANG=\xff\xfe", "LC_ALL=", "LC_CTYPE=C.UTF-8"},
      {"CUDA_VISIBLE_DEVICES=garbage"},
      {"CUDA_VISIBLE_DEVICES=-1"},
      {"CUDA_VISIBLE_DEVICES=0,0,0,99999999999999"},
      {"CUDA_VISIBLE_DEVICES=\n\x01"},
      {"CUDA_DEVICE_ORDER=bogus", "CUDA_LAUNCH_BLOCKING=maybe"},
      {"CUDA_CACHE_PATH=/nonexistent/\n", "CUDA_CACHE_MAXSIZE=-1"},
      {"CUDA_MODULE_LOADING=bogus", "CUDA_DISABLE_PTX_JIT=x"},
  };
  for (const std::vector<std::string>& environment : environments) {
    const Finished listed = gpubench_as(
        {"gpubench", "--benchmark_list_tests", "--benchmark_filter=^saxpy/driver/1024/"},
        environment);
    EXPECT_TRUE(lists(listed, {"saxpy/driver/1024/manual_time"})) << escaped(environment);
    const Finished bad = gpubench_as({"gpubench", "--device=x"}, environment);
    EXPECT_TRUE(one_line(bad, exit_usage, "--device=x: not a device number"))
        << escaped(environment);
  }
}

// --- The generated corpus: a fixed seed, so a failure repeats; it names its inputs. ---

class Corpus {
public:
  explicit Corpus(std::uint32_t seed) : random_(seed) {}

  std::size_t below(std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(random_);
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(random_); }
  template <class T> const T& pick(const std::vector<T>& items) {
    return items[below(items.size())];
  }

  // Any bytes but NUL (an argument cannot hold one), control characters and invalid UTF-8
  // likely, of a length up to `longest`.
  std::string bytes(std::size_t longest) {
    std::string text(below(longest + 1), 'a');
    for (char& c : text) {
      const std::size_t kind = below(4);
      c = static_cast<char>(kind == 0   ? 1 + below(31)
                            : kind == 1 ? 0x80 + below(128)
                                        : 0x20 + below(95));
    }
    return text;
  }

  // A byte no value of a number, a list of numbers or a word gpubench reads may hold: a control
  // character that is not white space, DEL, or a byte that is not ASCII.
  char poison() {
    const std::vector<char> bytes{'\x01', '\x02', '\x07', '\x08', '\x0e', '\x1b',
                                  '\x1f', '\x7f', '\x80', '\xc3', '\xff'};
    return pick(bytes);
  }

  std::string with_poison(std::string value) {
    value.insert(below(value.size() + 1), 1, poison());
    return value;
  }

private:
  std::mt19937 random_;
};

const std::vector<std::string> valid_listing_args{"--benchmark_filter=^saxpy/driver/1024/",
                                                  "--sizes=4K",
                                                  "--l2=warm",
                                                  "--benchmark_format=json",
                                                  "--benchmark_repetitions=3",
                                                  "--benchmark_color=false",
                                                  "--benchmark_context=a=b",
                                                  "--benchmark_time_unit=ms",
                                                  "--v=1",
                                                  "--device=0",
                                                  "--benchmark_min_time=0.5",
                                                  "--benchmark_counters_tabular=true"};

// One argument that is bad whatever else is given, from every category.
std::string bad_argument(Corpus& corpus, const ScratchDir& scratch) {
  const std::vector<std::string> value_flags{"--device",
                                             "--sizes",
                                             "--l2",
                                             "--benchmark_repetitions",
                                             "--benchmark_min_time",
                                             "--benchmark_format",
                                             "--benchmark_out_format",
                                             "--benchmark_color",
                                             "--benchmark_time_unit",
                                             "--v",
                                             "--benchmark_min_warmup_time",
                                             "--benchmark_list_tests"};
  switch (corpus.below(7)) {
  case 0: // an unknown flag
    return "--zz" + corpus.bytes(40) + (corpus.chance(0.5) ? "=" + corpus.bytes(40) : "");
  case 1: // a known flag, its value poisoned
    return corpus.pick(value_flags) + "=" + corpus.with_poison(corpus.bytes(30));
  case 2: { // a filter that is no regular expression
    std::string filter = corpus.bytes(60);
    std::erase_if(filter, [](char c) {
      return std::string_view("()[]{}\\*+?|-").find(c) != std::string_view::npos;
    });
    // Each breaks the filter before or after the rest, but '\' only at its end.
    const std::vector<std::string> breaks{"(", ")", "[", "a{2,1}", "a{999}", "[[:nope:]]"};
    if (corpus.chance(0.2)) {
      return "--benchmark_filter=" + filter + "\\";
    }
    const std::string& broken = corpus.pick(breaks);
    return "--benchmark_filter=" + (corpus.chance(0.5) ? broken + filter : filter + broken);
  }
  case 3: // a filter too long
    return "--benchmark_filter=" + corpus.bytes(40) + std::string(1025, 'a') + corpus.bytes(40);
  case 4: { // a device list too long, or naming one twice
    std::string list = "--device=0";
    const std::size_t count = corpus.chance(0.5) ? 65 + corpus.below(200) : 2 + corpus.below(10);
    for (std::size_t d = 1; d < count; ++d) {
      list += fmt::format(",{}", d);
    }
    return count > 64 ? list : list + ",0";
  }
  case 5: { // an output path that cannot be written
    const std::vector<std::string> paths{"", scratch.dir(), scratch.path("missing/x.json"),
                                         scratch.path("missing\n" + corpus.bytes(20) + "/x")};
    return "--benchmark_out=" + corpus.pick(paths);
  }
  default: { // a flag without its value
    const std::string& flag = corpus.pick(value_flags);
    return flag == "--benchmark_list_tests" ? "--sizes" : flag;
  }
  }
}

// Bad input among valid arguments, few or many: exit 2 in bounded time, one line, no signal.
TEST(HostileInput, GeneratedBadArguments) {
  Corpus corpus(27);
  ScratchDir scratch;
  for (int i = 0; i < 60; ++i) {
    std::vector<std::string> argv{"gpubench"};
    const std::size_t valid = corpus.chance(0.1) ? 2000 : corpus.below(6);
    for (std::size_t v = 0; v < valid; ++v) {
      argv.push_back(corpus.pick(valid_listing_args));
    }
    if (corpus.chance(0.7)) {
      argv.insert(argv.begin() + 1 + static_cast<long>(corpus.below(argv.size())),
                  "--benchmark_list_tests");
    }
    argv.insert(argv.begin() + 1 + static_cast<long>(corpus.below(argv.size())),
                bad_argument(corpus, scratch));
    const auto begin = std::chrono::steady_clock::now();
    const Finished run = gpubench_as(argv);
    EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(10)) << escaped(argv);
    EXPECT_TRUE(one_line(run, exit_usage, "")) << "case " << i << ":" << escaped(argv);
  }
  EXPECT_TRUE(std::filesystem::is_empty(scratch.dir()));
}

// Anything at all, also as argv[0] and in the environment, while listing: no signal, no hang,
// and either a listing (exit 0, nothing on stderr) or one line and a non-zero exit.
TEST(HostileInput, GeneratedAnyArguments) {
  Corpus corpus(2027);
  const std::vector<std::string> names{"--device",
                                       "--sizes",
                                       "--l2",
                                       "--benchmark_filter",
                                       "--benchmark_out",
                                       "--benchmark_context",
                                       "--v",
                                       "--benchmark_repetitions",
                                       "--benchmark_min_time",
                                       "-h"};
  ScratchDir scratch;
  for (int i = 0; i < 40; ++i) {
    std::vector<std::string> argv{corpus.chance(0.3) ? corpus.bytes(100) : "gpubench",
                                  "--benchmark_list_tests"};
    for (std::size_t a = corpus.below(6); a > 0; --a) {
      const std::size_t longest = corpus.chance(0.1) ? 20000 : 100;
      argv.push_back(corpus.chance(0.5) ? corpus.pick(names) + "=" + corpus.bytes(longest)
                                        : corpus.bytes(longest));
      // A path's parent must exist: the corpus creates nothing outside its scratch folder.
      if (argv.back().starts_with("--benchmark_out=")) {
        argv.back() = "--benchmark_out=" + scratch.path(fmt::format("{}.json", i));
      }
    }
    std::vector<std::string> environment;
    if (corpus.chance(0.3)) {
      environment = {"LC_ALL=" + corpus.bytes(20), "CUDA_VISIBLE_DEVICES=" + corpus.bytes(20)};
    }
    const auto begin = std::chrono::steady_clock::now();
    const Finished run = gpubench_as(argv, environment);
    const std::string what = fmt::format("case {}:{}", i, escaped(argv));
    EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(10)) << what;
    ASSERT_TRUE(ended_cleanly(run)) << what;
    if (run.exit_code == 0) {
      EXPECT_TRUE(run.err.empty()) << what << "\n" << run.err;
    } else {
      EXPECT_EQ(lines_of(run.err).size(), 1U) << what << "\n" << run.err;
      EXPECT_TRUE(run.err.starts_with("gpubench: ") && run.err.ends_with('\n')) << what;
    }
  }
}

} // namespace
} // namespace gpubench::testing
