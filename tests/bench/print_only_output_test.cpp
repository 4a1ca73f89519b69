// gpubench's print-only paths (--version, --help, --describe, --benchmark_list_tests, --info)
// when what they print cannot be written: past the file size limit (`ulimit -f`: the write
// fails with EFBIG, instead of SIGXFSZ ending the process), to /dev/full, or to a closed stdout.
// Each says so in one line on stderr and exits 1 (output that could not be written).
#include "limited_process.hpp"
#include "process.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

constexpr int exit_failure = 1;
const std::string lost_output = "gpubench: standard output could not be written\n";

std::vector<std::string> gpubench_argv(const std::vector<std::string>& args) {
  return command_line(GPUBENCH_BINARY, args);
}

const std::vector<std::vector<std::string>> print_only_paths{
    {"--version"}, {"--help"}, {"--describe"}, {"--benchmark_list_tests"}, {"--info"},
};

// What a print-only path gives when its output is lost: the one line and exit 1, not ended by a
// signal. A path that prints nothing here (--info where no driver answers: its one line why)
// gives what it gives with its output kept.
::testing::AssertionResult says_output_was_lost(const Finished& run, const Finished& kept) {
  if (run.timed_out) {
    return ::testing::AssertionFailure() << "did not finish in time";
  }
  if (run.signal != 0) {
    return ::testing::AssertionFailure() << "ended by signal " << run.signal;
  }
  const bool prints = kept.exit_code == 0 && !kept.out.empty();
  const int exit_code = prints ? exit_failure : kept.exit_code;
  const std::string& err = prints ? lost_output : kept.err;
  if (run.exit_code != exit_code || run.err != err) {
    return ::testing::AssertionFailure()
           << "exit " << run.exit_code << " (expected " << exit_code << "), stderr:\n"
           << run.err << "(expected:\n"
           << err << ")";
  }
  return ::testing::AssertionSuccess();
}

// A file size limit of half what the path prints: the write that passes it fails.
TEST(PrintOnlyOutput, PastTheFileSizeLimitIsOneLine) {
  for (const std::vector<std::string>& args : print_only_paths) {
    const Finished kept = run_limited(gpubench_argv(args), {});
    ASSERT_EQ(kept.signal, 0) << shown_args(args) << ": " << kept.err;
    const Finished run = run_limited(gpubench_argv(args),
                                     {{RLIMIT_FSIZE, static_cast<rlim_t>(kept.out.size() / 2)}});
    EXPECT_TRUE(says_output_was_lost(run, kept)) << shown_args(args);
    // Up to the limit is written, and not a byte past it.
    EXPECT_LE(run.out.size(), kept.out.size() / 2) << shown_args(args);
  }
}

TEST(PrintOnlyOutput, DevFullIsOneLine) {
  for (const std::vector<std::string>& args : print_only_paths) {
    const Finished kept = run_process(gpubench_argv(args));
    EXPECT_TRUE(says_output_was_lost(run_process(gpubench_argv(args), Stream::full), kept))
        << shown_args(args);
  }
}

TEST(PrintOnlyOutput, AClosedStdoutIsOneLine) {
  for (const std::vector<std::string>& args : print_only_paths) {
    const Finished kept = run_process(gpubench_argv(args));
    EXPECT_TRUE(says_output_was_lost(run_process(gpubench_argv(args), Stream::closed), kept))
        << shown_args(args);
  }
}

} // namespace
} // namespace gpubench::testing
