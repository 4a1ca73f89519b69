// host_drift as a user runs it: a bad argument is one line and exit 2, a stdout that takes no
// line (closed, full) one line and exit 1, and a short watch prints its windows and their spread.
#include "process.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

Finished host_drift(const std::vector<std::string>& args, Stream out = Stream::captured) {
  std::vector<std::string> argv{HOST_DRIFT_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  Process process(argv, out);
  return process.wait(std::chrono::seconds(60));
}

TEST(HostDrift, BadArgumentsAreOneLineAndExitTwo) {
  const std::vector<std::vector<std::string>> bad{
      {""}, {"x"}, {"--bogus"}, {"0"}, {"0.5"}, {"-5"}, {"nan"}, {"inf"}, {"1e9"},
      {"86401"}, {"5s"}, {" 5"}, {"5", "6"}, {"--help", "5"}, {"\x1b[2J\n"}};
  for (const auto& args : bad) {
    const Finished run = host_drift(args);
    SCOPED_TRACE(args.front());
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_EQ(run.out, "");
    ASSERT_TRUE(run.err.starts_with("host_drift: ")) << run.err;
    EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << run.err;
  }
  EXPECT_EQ(host_drift({"\x1b[2J\n"}).err,
            "host_drift: \\x1b[2J\\x0a: expected the seconds to watch, from 1 to 86400\n");
}

TEST(HostDrift, HelpIsTheUsage) {
  const Finished run = host_drift({"--help"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out, "usage: host_drift [SECONDS]  (from 1 to 86400, default 20)\n");
  EXPECT_EQ(run.err, "");
}

TEST(HostDrift, AStdoutThatTakesNoLineIsOneLineAndExitOne) {
  for (const Stream out : {Stream::closed, Stream::full}) {
    const Finished run = host_drift({"1"}, out);
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_EQ(run.err, "host_drift: stdout: No space left on device\n");
  }
}

TEST(HostDrift, ASecondsWatchPrintsItsWindowsAndTheirSpread) {
  const Finished run = host_drift({"1"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  EXPECT_TRUE(run.out.starts_with("perf cycles counter: ")) << run.out;
  EXPECT_NE(run.out.find("spin_us"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\nCV over 0.5 s windows: spin "), std::string::npos) << run.out;
}

} // namespace
} // namespace gpubench::testing
