#include "options.hpp"

#include <gtest/gtest.h>

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
  for (const char* arg : {"--benchmark_context=a", "--benchmark_frobnicate=1", "--v=x",
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
       "--benchmark_repetitions=0: expected a whole number of at least 1"},
      {"--benchmark_repetitions=x",
       "--benchmark_repetitions=x: expected a whole number of at least 1"},
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

} // namespace
} // namespace gpubench
