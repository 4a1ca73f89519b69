// The launch family's flags: --launch-threads, --graph-update-nodes and --gpu-loop-iterations read
// into its options.
#include "launch_flags.hpp"

#include "options.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace gpubench::bench {
namespace {

TEST(LaunchFlags, TheDefaultsAreTheIssuesCounts) {
  const LaunchOptions options = launch_options(FlagValues{});
  EXPECT_EQ(options.threads, (std::vector<std::int64_t>{1, 2, 4, 8, 16}));
  EXPECT_EQ(options.update_nodes, (std::vector<std::int64_t>{1, 16, 256, 1024}));
  EXPECT_EQ(options.loop_iterations, (std::vector<std::int64_t>{16, 1024}));
}

TEST(LaunchFlags, ListsAndRangesAreRead) {
  EXPECT_EQ(launch_thread_counts("1..32:x2"), (std::vector<std::int64_t>{1, 2, 4, 8, 16, 32}));
  EXPECT_EQ(launch_thread_counts("3,64"), (std::vector<std::int64_t>{3, 64}));
  EXPECT_EQ(graph_update_node_counts("1..1K:x4"),
            (std::vector<std::int64_t>{1, 4, 16, 64, 256, 1024}));
  const LaunchOptions options =
      launch_options(FlagValues({{"--launch-threads", "2"}, {"--graph-update-nodes", "8,2048"}}));
  EXPECT_EQ(options.threads, (std::vector<std::int64_t>{2}));
  EXPECT_EQ(options.update_nodes, (std::vector<std::int64_t>{8, 2048}));
}

TEST(LaunchFlags, ACountOutsideTheRangeNamesTheFlag) {
  for (const char* bad : {"0", "65", "1,128", "", "x", "4,"}) {
    try {
      static_cast<void>(launch_thread_counts(bad));
      ADD_FAILURE() << "--launch-threads=" << bad << " was accepted";
    } catch (const UsageError& error) {
      EXPECT_TRUE(std::string(error.what()).starts_with(std::string("--launch-threads=") + bad))
          << error.what();
    }
  }
  EXPECT_THROW(static_cast<void>(graph_update_node_counts("65537")), UsageError);
  EXPECT_THROW(static_cast<void>(graph_update_node_counts("0")), UsageError);
}

TEST(LaunchFlags, LoopIterationsAreReadWithinTheirRange) {
  EXPECT_EQ(gpu_loop_iteration_counts("1..4096:x4"),
            (std::vector<std::int64_t>{1, 4, 16, 64, 256, 1024, 4096}));
  EXPECT_EQ(launch_options(FlagValues(std::map<std::string, std::string, std::less<>>{
                               {"--gpu-loop-iterations", "64K"}}))
                .loop_iterations,
            (std::vector<std::int64_t>{65536}));
  for (const char* bad : {"0", "65537", "", "16,"}) {
    try {
      static_cast<void>(gpu_loop_iteration_counts(bad));
      ADD_FAILURE() << "--gpu-loop-iterations=" << bad << " was accepted";
    } catch (const UsageError& error) {
      EXPECT_TRUE(
          std::string(error.what()).starts_with(std::string("--gpu-loop-iterations=") + bad))
          << error.what();
    }
  }
}

} // namespace
} // namespace gpubench::bench
