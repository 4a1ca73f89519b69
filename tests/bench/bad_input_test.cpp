// Bad input, by kind, through the binary as a user runs it: every gpubench flag and every Google
// Benchmark flag it passes on with a value missing, empty, garbage, negative, overflowing or
// repeated; the sizes grammar; standard streams closed or full; listing with an output file.
// Each bad input gets exactly one line on stderr, starting "gpubench: ", nothing on stdout, and
// exit 2 (bad usage) or 1 (a run that could not be done); none aborts or hangs.
#include "context.hpp"
#include "cuda_error.hpp"
#include "process.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
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
    EXPECT_TRUE(one_line(gpubench({arg}), exit_usage, "unknown flag '" + arg + "'")) << arg;
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
      {"--benchmark_repetitions=", "at least 1"},
      {"--benchmark_repetitions=0", "at least 1"},
      {"--benchmark_repetitions=-1", "at least 1"},
      {"--benchmark_repetitions=abc", "at least 1"},
      {"--benchmark_repetitions=1.5", "at least 1"},
      {"--benchmark_repetitions=+1", "at least 1"},
      {"--benchmark_repetitions= 1", "at least 1"},
      {"--benchmark_repetitions=2147483648", "at least 1"},
      {"--benchmark_repetitions=99999999999999999999", "at least 1"},
      {"--v=", "at least 0"},
      {"--v=-1", "at least 0"},
      {"--v=abc", "at least 0"},
      {"--v=99999999999999999999", "at least 0"},
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
      {"--benchmark_min_time=x", "--benchmark_min_time=x: "},
      {"--benchmark_min_time=0x", "--benchmark_min_time=0x: "},
      {"--benchmark_min_time=-5x", "--benchmark_min_time=-5x: "},
      {"--benchmark_min_time=1.5x", "--benchmark_min_time=1.5x: "},
      {"--benchmark_min_time=99999999999999999999x",
       "--benchmark_min_time=99999999999999999999x: "},
      {"--benchmark_min_warmup_time=", "expected seconds"},
      {"--benchmark_min_warmup_time=abc", "expected seconds"},
      {"--benchmark_min_warmup_time=-1", "expected seconds"},
      {"--benchmark_min_warmup_time=1x", "expected seconds"},
      {"--benchmark_min_warmup_time=nan", "expected seconds"},
      {"--benchmark_filter=(", "not a regular expression"},
      {"--benchmark_filter=-(", "not a regular expression"},
      {"--benchmark_filter=[", "not a regular expression"},
      {"--benchmark_filter=a{2,1}", "not a regular expression"},
      {"--benchmark_filter=\\", "not a regular expression"},
      {"--benchmark_filter=a{99999999999}", "not a regular expression"},
      {"--benchmark_context=", "expected key=value"},
      {"--benchmark_context=x", "expected key=value"},
      {"--benchmark_context==1", "expected key=value"},
      {"--benchmark_context=a=1,b", "expected key=value"},
      {"--benchmark_context=a=b=c", "expected key=value"},
      {"--benchmark_context=a=1,,b=2", "expected key=value"},
      {"--benchmark_context=a=1,", "expected key=value"},
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
                                    "--benchmark_min_warmup_time=0.1",
                                    "--benchmark_min_warmup_time=0.1s",
                                    "--benchmark_repetitions=2147483647",
                                    "--benchmark_format=csv",
                                    "--benchmark_format=json",
                                    "--benchmark_out_format=csv",
                                    "--benchmark_time_unit=ms",
                                    "--benchmark_color=auto",
                                    "--benchmark_color=yes",
                                    "--benchmark_context=a=1,b=2",
                                    "--v=2"};
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

// Ten thousand sizes once took minutes to list; the listing must end promptly and say nothing
// on stderr (Google Benchmark warns about every case with more than 100 instances).
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

// Output that could not be written is an error (exit 1, one line where stderr can take it);
// nothing aborts when stderr is closed or full; an error keeps its own exit code.
TEST(BadInput, StandardStreamsClosedOrFull) {
  struct Case {
    std::vector<std::string> args;
    int exit_code;    // where stdout and stderr work
    std::string text; // its line, if it has one
  };
  const std::vector<Case> cases{
      {listing({}), 0, ""},
      {{"--help"}, 0, ""},
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
    // stdout full or closed: what was to be printed is lost.
    for (const Stream out : {Stream::full, Stream::closed}) {
      const Finished run = gpubench(c.args, out);
      if (writes_stdout) {
        EXPECT_TRUE(one_line(run, exit_failure, "standard output could not be written")) << what;
      } else {
        EXPECT_TRUE(one_line(run, c.exit_code, c.text)) << what;
      }
    }
    // stderr closed or full: the same exit, and no abort.
    for (const Stream err : {Stream::full, Stream::closed}) {
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
  struct stat after {};
  ASSERT_EQ(stat(existing.c_str(), &after), 0);
  EXPECT_EQ(read_file(existing), contents);
  EXPECT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
  EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  EXPECT_FALSE(std::filesystem::exists(scratch.path("new.json")));
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

} // namespace
} // namespace gpubench::testing
