// --pin-sizes, the pin family's sizes, through the binary as a user runs it: a bad value gets
// one line naming the flag and exit 2; a good one lists each size once, in order, for every case.
#include "process.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

constexpr int exit_usage = 2;

Finished listed(const std::string& sizes, const std::string& filter = "^pin/register/pin/") {
  return run_process({GPUBENCH_BINARY, "--benchmark_list_tests", "--benchmark_filter=" + filter,
                      "--pin-sizes=" + sizes});
}

TEST(PinSizes, ABadValueIsOneLineNamingTheFlag) {
  const std::vector<std::pair<std::string, std::string>> bad{
      {"", "empty size list"},
      {"0", "zero"},
      {"-4K", "negative"},
      {"4T", "unit"},
      {"0x10", "unit"},
      {"4K,", "empty"},
      {"16G..4K", "start is above its end"},
      {"17179869183G", "too large"},
  };
  for (const auto& [sizes, text] : bad) {
    const Finished run = listed(sizes);
    const std::vector<std::string> lines = lines_of(run.err);
    EXPECT_EQ(run.exit_code, exit_usage) << sizes;
    EXPECT_TRUE(run.out.empty()) << sizes << ": " << run.out;
    ASSERT_EQ(lines.size(), 1U) << sizes << ": " << run.err;
    EXPECT_TRUE(lines.front().starts_with("gpubench: --pin-sizes=" + sizes + ": "))
        << lines.front();
    EXPECT_NE(lines.front().find(text), std::string::npos) << lines.front();
  }
}

TEST(PinSizes, ARangeListsEachSizeForEveryCase) {
  const Finished run = listed("4K..16G:x4", "^pin/");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  const std::vector<std::string> names = lines_of(run.out);
  // 6 APIs, each pinned and released, at 4K, 16K, ... 16G: 12 sizes.
  ASSERT_EQ(names.size(), 6U * 2U * 12U) << run.out;
  EXPECT_EQ(names.front(), "pin/register/pin/4096/manual_time");
  EXPECT_EQ(names[11], "pin/register/pin/17179869184/manual_time");
  EXPECT_EQ(names[12], "pin/register/unpin/4096/manual_time");
  EXPECT_EQ(names.back(), "pin/host_alloc_wc/free/17179869184/manual_time");
}

TEST(PinSizes, TheDefaultIsAHandful) {
  const Finished run =
      run_process({GPUBENCH_BINARY, "--benchmark_list_tests", "--benchmark_filter=^pin/"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(lines_of(run.out).size(), 6U * 2U * 4U) << run.out;
}

} // namespace
} // namespace gpubench::testing
