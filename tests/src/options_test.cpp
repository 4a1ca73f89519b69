#include "options.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace gpubench {
namespace {

Options parse(std::vector<std::string> args) {
  args.insert(args.begin(), "gpubench");
  return parse_options(args);
}

TEST(ParseOptions, DefaultsToDeviceZero) {
  const Options options = parse({});
  EXPECT_EQ(options.devices, std::vector<int>{0});
  EXPECT_FALSE(options.info);
  EXPECT_FALSE(options.list_only);
  EXPECT_EQ(options.benchmark_args, std::vector<std::string>{"gpubench"});
}

// Google Benchmark writes argv[0] into the JSON as `executable`, escaping only a few characters:
// a control character or a byte that is not UTF-8 in it would leave the file invalid.
TEST(ParseOptions, TheProgramNameGoogleBenchmarkWritesIsText) {
  EXPECT_EQ(parse_options({"gpu\x01" "bench\xff"}).benchmark_args,
            std::vector<std::string>{"gpu\\x01bench\\xff"});
  EXPECT_EQ(parse_options({"/opt/caf\xc3\xa9/gpubench"}).benchmark_args,
            std::vector<std::string>{"/opt/caf\xc3\xa9/gpubench"});
}

TEST(ParseOptions, OwnFlags) {
  const Options options = parse({"--device=3", "--info"});
  EXPECT_EQ(options.devices, std::vector<int>{3});
  EXPECT_TRUE(options.info);
  EXPECT_EQ(parse({"--device=0,2"}).devices, (std::vector<int>{0, 2}));
  EXPECT_FALSE(parse({"--device=all"}).devices.has_value());
}

TEST(ParseOptions, FamilyFlagsGoToTheirFamily) {
  std::vector<std::string> checked;
  const auto check = [&](std::string_view value) {
    if (value == "bad") {
      throw UsageError("bad");
    }
    checked.emplace_back(value);
  };
  const std::vector<ExtraFlag> flags{{"--sizes", "copy sizes", check}, {"--l2", "L2", check}};
  const Options options = parse_options({"gpubench", "--sizes=1M", "--sizes=4K,1M"}, flags);
  EXPECT_EQ(options.family_flags, (decltype(options.family_flags){{"--sizes", "4K,1M"}}));
  EXPECT_EQ(checked, (std::vector<std::string>{"1M", "4K,1M"}));
  EXPECT_THROW(static_cast<void>(parse_options({"gpubench", "--sizes=bad", "--sizes=1M"}, flags)),
               UsageError);
  EXPECT_TRUE(parse_options({"gpubench"}, flags).family_flags.empty());
  EXPECT_THROW(static_cast<void>(parse_options({"gpubench", "--size=4K"}, flags)), UsageError);
  EXPECT_THROW(static_cast<void>(parse_options({"gpubench", "--l2"}, flags)), UsageError);
}

TEST(ParseOptions, OutputFileAndFormat) {
  const std::string file = ::testing::TempDir() + "options_test_r.json";
  const Options json = parse({"--benchmark_out=" + file});
  EXPECT_TRUE(json.out_given);
  EXPECT_EQ(json.out_file, file);
  EXPECT_EQ(json.out_format, "json");
  EXPECT_EQ(parse({"--benchmark_out=" + file, "--benchmark_out_format=csv"}).out_format, "csv");
  EXPECT_FALSE(parse({}).out_given);
}

TEST(ParseOptions, ListTestsTakesGoogleBenchmarksBooleans) {
  EXPECT_TRUE(parse({"--benchmark_list_tests=yes"}).list_only);
  EXPECT_TRUE(parse({"--benchmark_list_tests=On"}).list_only);
  EXPECT_FALSE(parse({"--benchmark_list_tests", "--benchmark_list_tests=false"}).list_only);
  EXPECT_TRUE(parse({"--benchmark_list_tests=0", "--benchmark_list_tests"}).list_only);
}

TEST(ParseOptions, PassesGoogleBenchmarkFlagsThrough) {
  const Options options =
      parse({"--benchmark_filter=saxpy", "--device=1", "--benchmark_list_tests=true"});
  EXPECT_EQ(options.benchmark_args,
            (std::vector<std::string>{"gpubench", "--benchmark_list_tests=true"}));
  EXPECT_EQ(options.filter, "saxpy");
  EXPECT_TRUE(options.list_only);
  EXPECT_FALSE(parse({"--benchmark_list_tests=false"}).list_only);
}

// What Google Benchmark reads and reports itself (bench/benchmark_args.hpp) passes as given.
TEST(ParseOptions, LeavesToGoogleBenchmarkWhatItReads) {
  for (const char* arg : {"--benchmark_context", "--benchmark_frobnicate=1", "--v=x",
                          "--benchmark_repetitions", "--benchmark_format", "--v"}) {
    EXPECT_EQ(parse({arg}).benchmark_args, (std::vector<std::string>{"gpubench", arg})) << arg;
  }
}

TEST(ParseOptions, MinTimeAsTheLinkedGoogleBenchmarkReadsIt) {
  const auto passed = [](const std::string& arg, MinTimeSyntax syntax) {
    return parse_options({"gpubench", arg}, {}, syntax).benchmark_args.at(1);
  };
  EXPECT_EQ(passed("--benchmark_min_time=0.5", MinTimeSyntax::with_unit),
            "--benchmark_min_time=0.5s");
  EXPECT_EQ(passed("--benchmark_min_time=0.5s", MinTimeSyntax::with_unit),
            "--benchmark_min_time=0.5s");
  EXPECT_EQ(passed("--benchmark_min_time=10x", MinTimeSyntax::with_unit),
            "--benchmark_min_time=10x");
  EXPECT_EQ(passed("--benchmark_min_time=0.5s", MinTimeSyntax::bare_seconds),
            "--benchmark_min_time=0.5");
  EXPECT_EQ(passed("--benchmark_min_time=0.5", MinTimeSyntax::bare_seconds),
            "--benchmark_min_time=0.5");
  EXPECT_THROW(static_cast<void>(passed("--benchmark_min_time=10x", MinTimeSyntax::bare_seconds)),
               UsageError);
  for (const MinTimeSyntax syntax : {MinTimeSyntax::with_unit, MinTimeSyntax::bare_seconds}) {
    EXPECT_EQ(passed("--benchmark_min_warmup_time=0.1s", syntax),
              "--benchmark_min_warmup_time=0.1");
  }
}

// A time below a nanosecond is 0 in effect, and a subnormal one is out of range to strtod, which
// Google Benchmark 1.8 reads --benchmark_min_time with.
TEST(ParseOptions, SecondsBelowANanosecondAreRefused) {
  for (const MinTimeSyntax syntax : {MinTimeSyntax::with_unit, MinTimeSyntax::bare_seconds}) {
    for (const std::string flag : {"--benchmark_min_time=", "--benchmark_min_warmup_time="}) {
      for (const char* seconds : {"1e-310", "4.9e-324s", "1e-10", "0.0000000009"}) {
        EXPECT_THROW(static_cast<void>(parse_options({"gpubench", flag + seconds}, {}, syntax)),
                     UsageError)
            << flag << seconds;
      }
      for (const char* seconds : {"0", "0s", "-0", "1e-9", "0.000000001s"}) {
        EXPECT_NO_THROW(static_cast<void>(parse_options({"gpubench", flag + seconds}, {}, syntax)))
            << flag << seconds;
      }
    }
  }
  try {
    static_cast<void>(parse({"--benchmark_min_time=1e-310s"}));
    ADD_FAILURE() << "1e-310s accepted";
  } catch (const UsageError& error) {
    EXPECT_STREQ(error.what(), "--benchmark_min_time=1e-310s: expected 0 or at least 1e-09 "
                               "seconds (a nanosecond)");
  }
}

TEST(ParseOptions, BadInputNamesTheFlag) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"--device=abc", "--device=abc: not a device number"},
      {"--device=-1", "--device=-1: a device number cannot be negative"},
      {"--device=", "--device=: not a device number"},
      {"--device=1x", "--device=1x: not a device number"},
      {"--device=0,0", "--device=0,0: device 0 is named twice"},
      {"--device=0,", "--device=0,: not a device number"},
      {"--frobnicate", "unknown flag '--frobnicate' (see --help)"},
      {"--benchmark_format=xml", "--benchmark_format=xml: expected console, json, csv"},
      {"--benchmark_out_format=xml", "--benchmark_out_format=xml: expected console, json, csv"},
      {"--benchmark_list_tests=maybe", "--benchmark_list_tests=maybe: expected true or false"},
      {"--benchmark_repetitions=0",
       "--benchmark_repetitions=0: expected a whole number from 1 to 10000"},
      {"--benchmark_repetitions=x",
       "--benchmark_repetitions=x: expected a whole number from 1 to 10000"},
      {"--benchmark_min_time=-1",
       "--benchmark_min_time=-1: expected seconds (e.g. 0.5s) or iterations (e.g. 100x)"},
      {"--benchmark_min_time=nan",
       "--benchmark_min_time=nan: expected seconds (e.g. 0.5s) or iterations (e.g. 100x)"},
      {"--benchmark_filter=(", "--benchmark_filter=(: not a regular expression: "},
      {"--benchmark_out=/nonexistent/x.json",
       "--benchmark_out=/nonexistent/x.json: directory /nonexistent does not exist"},
      {"--benchmark_out=/", "--benchmark_out=/: is a directory"},
      {"--benchmark_out=", "--benchmark_out=: empty file name"},
  };
  for (const auto& [arg, message] : cases) {
    try {
      static_cast<void>(parse({arg}));
      ADD_FAILURE() << arg << " was accepted";
    } catch (const UsageError& error) {
      EXPECT_TRUE(std::string(error.what()).starts_with(message)) << error.what();
    }
  }
}

// The message parse_options gives `args`, or "accepted".
std::string refusal(std::vector<std::string> args, MinTimeSyntax syntax = MinTimeSyntax::with_unit,
                    const std::vector<FlagFromEnvironment>& environment = {}) {
  args.insert(args.begin(), "gpubench");
  try {
    static_cast<void>(parse_options(args, {}, syntax, environment));
    return "accepted";
  } catch (const UsageError& error) {
    return error.what();
  }
}

TEST(ParseOptions, SignedDeviceNumbersAreRefused) {
  for (const char* arg : {"--device=-0", "--device=1,-0", "--device=-00"}) {
    EXPECT_EQ(refusal({arg}), std::string(arg) + ": a device number cannot be negative");
  }
}

// Each run length has a bound no measurement needs, so every run ends.
TEST(ParseOptions, RunLengthsHaveUpperBounds) {
  EXPECT_EQ(refusal({"--benchmark_repetitions=10000"}), "accepted");
  EXPECT_EQ(refusal({"--benchmark_repetitions=10001"}),
            "--benchmark_repetitions=10001: expected a whole number from 1 to 10000");
  EXPECT_EQ(refusal({"--benchmark_repetitions=2147483647"}),
            "--benchmark_repetitions=2147483647: expected a whole number from 1 to 10000");
  for (const MinTimeSyntax syntax : {MinTimeSyntax::with_unit, MinTimeSyntax::bare_seconds}) {
    for (const char* flag : {"--benchmark_min_time", "--benchmark_min_warmup_time"}) {
      EXPECT_EQ(refusal({std::string(flag) + "=86400"}, syntax), "accepted") << flag;
      EXPECT_EQ(refusal({std::string(flag) + "=86400s"}, syntax), "accepted") << flag;
      for (const char* value : {"86401", "1e20", "1e308", "86400.5s"}) {
        const std::string arg = std::string(flag) + "=" + value;
        EXPECT_EQ(refusal({arg}, syntax), arg + ": at most 86400 seconds (a day)");
      }
    }
  }
  EXPECT_EQ(refusal({"--benchmark_min_time=1000000000x"}), "accepted");
  EXPECT_EQ(refusal({"--benchmark_min_time=1000000001x"}),
            "--benchmark_min_time=1000000001x: expected a whole number of iterations from 1 to "
            "1000000000");
}

TEST(ParseOptions, NegativeIterationsSayNegative) {
  for (const MinTimeSyntax syntax : {MinTimeSyntax::with_unit, MinTimeSyntax::bare_seconds}) {
    EXPECT_EQ(refusal({"--benchmark_min_time=-5x"}, syntax),
              "--benchmark_min_time=-5x: a number of iterations cannot be negative");
    EXPECT_EQ(refusal({"--benchmark_min_time=0x"}, syntax),
              "--benchmark_min_time=0x: expected a whole number of iterations from 1 to "
              "1000000000");
  }
}

// Google Benchmark's JSON writer escapes only \b \f \n \r \t \\ and ": anything else that is
// not text would leave the file invalid JSON, so it is refused, shown escaped.
TEST(ParseOptions, ContextKeysAndValuesAreText) {
  const std::string text = "a key or value holds a control character or bytes that are not UTF-8";
  EXPECT_EQ(refusal({"--benchmark_context=k=\x1b[2J"}), "--benchmark_context=k=\\x1b[2J: " + text);
  EXPECT_EQ(refusal({"--benchmark_context=k\x01=v"}), "--benchmark_context=k\\x01=v: " + text);
  EXPECT_EQ(refusal({"--benchmark_context=n=\xff"}), "--benchmark_context=n=\\xff: " + text);
  EXPECT_EQ(refusal({"--benchmark_context=a=1,n=\xc2\x85"}),
            "--benchmark_context=a=1,n=\\xc2\\x85: " + text);
  EXPECT_EQ(refusal({"--benchmark_context=a=\t"}), "--benchmark_context=a=\\x09: " + text);
  EXPECT_EQ(refusal({"--benchmark_context==v"}), "--benchmark_context==v: a key is empty");
  for (const char* arg : {"--benchmark_context=x", "--benchmark_context=a=1,", "--benchmark_context=a=b=c",
                          "--benchmark_context=a=1,,b=2", "--benchmark_context=,a=1"}) {
    EXPECT_EQ(refusal({arg}), std::string(arg) +
                                  ": expected key=value pairs separated by commas (e.g. "
                                  "rack=7,run=nightly)");
  }
  for (const char* arg : {"--benchmark_context=", "--benchmark_context=rack=7,run=nightly",
                          "--benchmark_context=note=", "--benchmark_context=site=caf\xc3\xa9"}) {
    EXPECT_EQ(refusal({arg}), "accepted") << arg;
  }
}

// The settings a result's context states are those Google Benchmark measures with: gpubench's
// minimum time of 0 where none is given, the last of a flag given twice, one spelling of each
// value whichever Google Benchmark is linked.
TEST(RunSettings, AreTheFlagsGoogleBenchmarkMeasuresWith) {
  using Settings = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(run_settings(parse({})), (Settings{{"benchmark_min_time", "0s"},
                                               {"benchmark_min_warmup_time", "0s"},
                                               {"benchmark_enable_random_interleaving", "false"}}));
  for (const MinTimeSyntax syntax : {MinTimeSyntax::bare_seconds, MinTimeSyntax::with_unit}) {
    const Options options = parse_options(
        {"gpubench", "--benchmark_min_time=2", "--benchmark_min_time=0.5",
         "--benchmark_min_warmup_time=0.25", "--benchmark_enable_random_interleaving",
         "--benchmark_filter=^saxpy/\x01", "--benchmark_filter=^copy/\x1b"},
        {}, syntax);
    EXPECT_EQ(run_settings(options), (Settings{{"benchmark_min_time", "0.5s"},
                                               {"benchmark_min_warmup_time", "0.25s"},
                                               {"benchmark_enable_random_interleaving", "true"},
                                               {"benchmark_filter", "^copy/\\x1b"}}));
  }
  const Options iterations = parse_options(
      {"gpubench", "--benchmark_min_time=100x", "--benchmark_enable_random_interleaving=on",
       "--benchmark_enable_random_interleaving=No"});
  EXPECT_EQ(run_settings(iterations)[0].second, "100x");
  EXPECT_EQ(run_settings(iterations)[2].second, "false");
  EXPECT_EQ(run_settings(parse({"--benchmark_filter=a\x01" "b"})).back().second, "a\\x01b");
  for (const auto& [key, value] : run_settings(parse({"--benchmark_filter=saxpy"}))) {
    EXPECT_TRUE(written_context_key(key)) << key;
  }
}

// Each family flag given is stated under its own name, with its value as given (a size list may
// hold spaces), so that scripts/gpubench-tools flags can give it again; a flag not given is not.
TEST(RunSettings, StateTheFamilyFlagsGiven) {
  const auto check = [](std::string_view) {};
  const std::vector<ExtraFlag> flags{{"--sizes", "copy sizes", check},
                                     {"--latency-sizes", "chase sizes", check},
                                     {"--l2", "L2", check}};
  const Options options = parse_options(
      {"gpubench", "--sizes=1K", "--l2=warm", "--sizes=1G, 4G", "--benchmark_filter=^copy/"},
      flags);
  const auto settings = run_settings(options);
  const std::map<std::string, std::string> stated(settings.begin(), settings.end());
  EXPECT_EQ(stated.at("--sizes"), "1G, 4G");
  EXPECT_EQ(stated.at("--l2"), "warm");
  EXPECT_EQ(stated.count("--latency-sizes"), 0U);
  for (const auto& [key, value] : settings) {
    EXPECT_TRUE(written_context_key(key)) << key;
  }
  EXPECT_EQ(refusal({"--benchmark_context=--sizes=1K"}),
            "--benchmark_context=--sizes=1K: the context holds --sizes already");
}

// A key the context holds already would be written twice, and readers take one of the two.
TEST(ParseOptions, ContextKeysGpubenchWritesAreRefused) {
  for (const char* key : {"gpu_name", "run_status", "gpubench_version", "date", "host_name",
                          "gpu_health_after", "device_3", "device_0_health_before",
                          "device_12_energy", "peer_0to1", "saxpy_l2", "interrupted"}) {
    const std::string arg = std::string("--benchmark_context=site=a,") + key + "=x";
    EXPECT_EQ(refusal({arg}), arg + ": the context holds " + key + " already") << key;
  }
  for (const char* key : {"device", "device_name", "peer", "peer_x", "gpu", "rack", "run"}) {
    EXPECT_FALSE(written_context_key(key)) << key;
  }
}

// The scripts read merged_runs as a merged recording's count of runs (scripts/gpubench-tools merge).
TEST(ParseOptions, TheMergedRunsKeyIsRefused) {
  EXPECT_EQ(refusal({"--benchmark_context=rack=7,merged_runs=19"}),
            "--benchmark_context=rack=7,merged_runs=19: merged_runs is the count of runs "
            "scripts/gpubench-tools merge writes");
}

// --describe, --info, --version and a listing each print in place of a run and write no output
// file: given together, all but one would be ignored without a word.
TEST(ParseOptions, ModesGivenTogetherAreRefused) {
  EXPECT_EQ(refusal({"--describe", "--info"}),
            "--describe and --info: each prints something in place of a run; give one");
  EXPECT_EQ(refusal({"--info", "--benchmark_list_tests"}),
            "--info and --benchmark_list_tests: each prints something in place of a run; give one");
  EXPECT_EQ(refusal({"--describe"}, MinTimeSyntax::with_unit, {{"BENCHMARK_LIST_TESTS", "1"}}),
            "--describe and --benchmark_list_tests: each prints something in place of a run; "
            "give one");
  EXPECT_EQ(refusal({"--describe", "--benchmark_out=facts.json"}),
            "--benchmark_out=facts.json: --describe prints on standard output and writes no "
            "file; a run writes it");
  EXPECT_EQ(refusal({"--version", "--benchmark_list_tests"}),
            "--version and --benchmark_list_tests: each prints something in place of a run; "
            "give one");
  EXPECT_EQ(refusal({"--version", "--benchmark_out=v.json"}),
            "--benchmark_out=v.json: --version prints on standard output and writes no file; a "
            "run writes it");
  // A job's BENCHMARK_OUT is where its runs write; --info, --describe and --version neither
  // write nor probe it.
  const std::string unwritable = ::testing::TempDir() + "no_such_dir/r.json";
  for (const char* mode : {"--info", "--describe", "--version"}) {
    const Options options = parse_options({"gpubench", mode}, {}, MinTimeSyntax::with_unit,
                                          {{"BENCHMARK_OUT", unwritable}});
    EXPECT_FALSE(options.out_given) << mode;
    EXPECT_TRUE(options.out_file.empty()) << mode;
  }
  const std::string out = "--benchmark_out=" + ::testing::TempDir() + "options_test_modes.json";
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--help", "--describe", "--info", "--version", out},
           {"--info", "--benchmark_list_tests=false"},
           {"--benchmark_list_tests", out}}) {
    EXPECT_EQ(refusal(args), "accepted") << args.front();
  }
}

// Google Benchmark keeps the first value of a key it reads twice, so gpubench hands it one
// --benchmark_context of every occurrence's pairs, a key's later value in place of its earlier
// one: the command line's over the environment's, as for every flag.
TEST(ParseOptions, ContextKeysGivenAgainTakeTheLaterValue) {
  const auto passed = [](std::vector<std::string> args,
                         const std::vector<FlagFromEnvironment>& environment = {}) {
    args.insert(args.begin(), "gpubench");
    return parse_options(args, {}, MinTimeSyntax::with_unit, environment).benchmark_args;
  };
  using Args = std::vector<std::string>;
  EXPECT_EQ(passed({"--benchmark_context=run=a", "--benchmark_context=run=b,rack=7"}),
            (Args{"gpubench", "--benchmark_context=rack=7,run=b"}));
  EXPECT_EQ(passed({"--benchmark_context=run=b"}, {{"BENCHMARK_CONTEXT", "run=a,site=x"}}),
            (Args{"gpubench", "--benchmark_context=run=b,site=x"}));
  EXPECT_EQ(passed({"--benchmark_context=", "--benchmark_repetitions=2"}),
            (Args{"gpubench", "--benchmark_repetitions=2"}));
  EXPECT_EQ(refusal({"--benchmark_context=run=a,rack=7,run=b"}),
            "--benchmark_context=run=a,rack=7,run=b: key run is given twice");
}

// Google Benchmark's flags from its environment variables: checked as flags given first, so the
// command line wins, and a refusal names the variable.
TEST(ParseOptions, FlagsFromTheEnvironment) {
  const std::vector<FlagFromEnvironment> repetitions{{"BENCHMARK_REPETITIONS", "0"}};
  EXPECT_EQ(refusal({}, MinTimeSyntax::with_unit, repetitions),
            "--benchmark_repetitions=0: expected a whole number from 1 to 10000 (from the "
            "environment variable BENCHMARK_REPETITIONS)");
  EXPECT_EQ(refusal({}, MinTimeSyntax::with_unit, {{"BENCHMARK_OUT", ""}}),
            "--benchmark_out=: empty file name (from the environment variable BENCHMARK_OUT)");
  // An --benchmark_out on the command line replaces the environment's, and says so alone.
  EXPECT_EQ(refusal({"--benchmark_out=/nonexistent/x"}, MinTimeSyntax::with_unit,
                    {{"BENCHMARK_OUT", "out.json"}}),
            "--benchmark_out=/nonexistent/x: directory /nonexistent does not exist");

  const std::vector<FlagFromEnvironment> environment{{"BENCHMARK_LIST_TESTS", "true"},
                                                     {"BENCHMARK_FILTER", "saxpy"},
                                                     {"BENCHMARK_REPETITIONS", "3"}};
  const Options listed =
      parse_options({"gpubench", "--benchmark_repetitions=5"}, {}, MinTimeSyntax::with_unit,
                    environment);
  EXPECT_TRUE(listed.list_only);
  EXPECT_EQ(listed.filter, "saxpy");
  EXPECT_EQ(listed.benchmark_args,
            (std::vector<std::string>{"gpubench", "--benchmark_list_tests=true",
                                      "--benchmark_repetitions=3", "--benchmark_repetitions=5"}));
  EXPECT_FALSE(parse_options({"gpubench", "--benchmark_list_tests=false"}, {},
                             MinTimeSyntax::with_unit, environment)
                   .list_only);
}

class OutputThroughLinks : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "options_test_links_" + std::to_string(getpid());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directory(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  [[nodiscard]] std::string path(const std::string& name) const { return dir_ + "/" + name; }

private:
  std::string dir_;
};

// A dangling link to a name that can be created is written through; the check leaves nothing.
TEST_F(OutputThroughLinks, DanglingLinkIsAccepted) {
  std::filesystem::create_symlink("target.json", path("link"));
  std::filesystem::create_symlink(path("link"), path("link_to_link"));
  for (const char* name : {"link", "link_to_link"}) {
    const Options options = parse({"--benchmark_out=" + path(name)});
    EXPECT_EQ(options.out_file, path(name));
    EXPECT_FALSE(std::filesystem::exists(path("target.json"))) << name;
    EXPECT_TRUE(std::filesystem::is_symlink(path(name))) << name;
    std::error_code error;
    EXPECT_EQ(followed_links(path(name), error), path("target.json")) << name;
    EXPECT_FALSE(error);
  }
}

TEST_F(OutputThroughLinks, ErrorsNameTheRealCause) {
  std::filesystem::create_symlink("loop_b", path("loop_a"));
  std::filesystem::create_symlink("loop_a", path("loop_b"));
  std::filesystem::create_symlink("missing/target.json", path("into_missing"));
  const std::string long_name(300, 'c');
  const std::vector<std::pair<std::string, std::string>> cases{
      {path("loop_a"), ": cannot be written: Too many levels of symbolic links"},
      {path("into_missing"), ": directory " + path("missing") + " does not exist"},
      {path(long_name), ": cannot be written: File name too long"},
      {path(long_name + "/x.json"), ": cannot be written: File name too long"},
  };
  for (const auto& [file, message] : cases) {
    EXPECT_EQ(refusal({"--benchmark_out=" + file}), "--benchmark_out=" + file + message);
  }
  std::error_code error;
  static_cast<void>(followed_links(path("loop_a"), error));
  EXPECT_EQ(error, std::errc::too_many_symbolic_link_levels);
}

} // namespace
} // namespace gpubench
