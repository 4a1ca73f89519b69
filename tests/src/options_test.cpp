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

TEST(ParseOptions, DefaultsToDeviceZeroColdL2) {
  const Options options = parse({});
  EXPECT_EQ(options.device, 0);
  EXPECT_FALSE(options.info);
  EXPECT_FALSE(options.sizes.has_value());
  EXPECT_EQ(options.l2, L2Mode::cold);
  EXPECT_EQ(options.benchmark_args, std::vector<std::string>{"gpubench"});
}

TEST(ParseOptions, OwnFlags) {
  const Options options = parse({"--device=3", "--info", "--sizes=4K,1M", "--l2=warm"});
  EXPECT_EQ(options.device, 3);
  EXPECT_TRUE(options.info);
  EXPECT_EQ(options.sizes, (std::vector<std::size_t>{4096, 1U << 20U}));
  EXPECT_EQ(options.l2, L2Mode::warm);
}

TEST(ParseOptions, PassesGoogleBenchmarkFlagsThrough) {
  const Options options =
      parse({"--benchmark_filter=saxpy", "--device=1", "--benchmark_list_tests=true"});
  EXPECT_EQ(options.benchmark_args,
            (std::vector<std::string>{"gpubench", "--benchmark_filter=saxpy",
                                      "--benchmark_list_tests=true"}));
  EXPECT_TRUE(options.list_only);
  EXPECT_FALSE(parse({"--benchmark_list_tests=false"}).list_only);
}

TEST(ParseOptions, BadInputNamesTheFlag) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"--device=abc", "--device=abc: not a device number"},
      {"--device=-1", "--device=-1: a device number cannot be negative"},
      {"--device=", "--device=: not a device number"},
      {"--device=1x", "--device=1x: not a device number"},
      {"--l2=hot", "--l2=hot: expected cold or warm"},
      {"--frobnicate", "unknown flag '--frobnicate' (see --help)"},
      {"--sizes=", "--sizes=: empty size list"},
      {"--sizes=0", "--sizes=0: bad size '0': zero"},
      {"--sizes=-4K", "--sizes=-4K: bad size '-4K': negative"},
      {"--sizes=abc", "--sizes=abc: bad size 'abc': not a number"},
  };
  for (const auto& [arg, message] : cases) {
    try {
      static_cast<void>(parse({arg}));
      ADD_FAILURE() << arg << " was accepted";
    } catch (const UsageError& error) {
      EXPECT_EQ(error.what(), message);
    }
  }
}

} // namespace
} // namespace gpubench
