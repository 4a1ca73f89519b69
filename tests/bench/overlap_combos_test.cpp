// The overlap family's pure parts on the CPU: its combinations' names, labels and copy engines,
// how many operations each stream queues in a round, the figures a round makes, and its sizes
// flag; and the flag through the binary.
#include "options.hpp"
#include "overlap_figures.hpp"
#include "overlap_sizes.hpp"
#include "process.hpp"
#include "stream_combos.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

using bench::StreamCombo;
using bench::StreamWork;

TEST(OverlapCombos, NamesFollowTheCopyFamilysDirectionsJoinedOrCounted) {
  std::vector<std::string> names;
  for (const StreamCombo& combo : bench::stream_combos()) {
    names.push_back(combo.name());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"HtoD_DtoH", "HtoD_saxpy", "DtoH_saxpy",
                                             "HtoD_DtoH_saxpy", "HtoDx2", "HtoDx4"}));
}

TEST(OverlapCombos, LabelsAreUniqueWithAnIndexWhereAWorkRepeats) {
  using enum StreamWork;
  EXPECT_EQ((StreamCombo{{htod, dtoh, saxpy}}.labels()),
            (std::vector<std::string>{"htod", "dtoh", "saxpy"}));
  EXPECT_EQ((StreamCombo{{htod, htod, htod, htod}}.labels()),
            (std::vector<std::string>{"htod0", "htod1", "htod2", "htod3"}));
  EXPECT_EQ((StreamCombo{{htod, dtoh, htod}}.labels()),
            (std::vector<std::string>{"htod0", "dtoh", "htod1"}));
  for (const StreamCombo& combo : bench::stream_combos()) {
    EXPECT_LE(combo.works.size(), bench::max_streams) << combo.name();
  }
}

TEST(OverlapCombos, EveryCopyStreamNeedsAnEngineAndTheSaxpyNone) {
  using enum StreamWork;
  EXPECT_EQ((StreamCombo{{htod, dtoh}}.copy_engines_needed()), 2);
  EXPECT_EQ((StreamCombo{{htod, saxpy}}.copy_engines_needed()), 1);
  EXPECT_EQ((StreamCombo{{htod, dtoh, saxpy}}.copy_engines_needed()), 2);
  EXPECT_EQ((StreamCombo{{htod, htod, htod, htod}}.copy_engines_needed()), 4);
}

TEST(OverlapRounds, EachStreamFillsTheLongestOperationOrAMillisecond) {
  // A 1.2 ms copy beside a 60 us saxpy: one copy, 20 saxpys.
  EXPECT_EQ(bench::ops_per_round({1.2e-3, 60e-6}), (std::vector<std::size_t>{1, 20}));
  // Two like copies: one each, however they differ by a little.
  EXPECT_EQ(bench::ops_per_round({1.2e-3, 1.15e-3}), (std::vector<std::size_t>{1, 1}));
  // Short operations fill a millisecond at least.
  EXPECT_EQ(bench::ops_per_round({20e-6, 25e-6}), (std::vector<std::size_t>{50, 40}));
  // Never more than a gated stream may hold, never none.
  EXPECT_EQ(bench::ops_per_round({1e-3, 1e-7}),
            (std::vector<std::size_t>{1, bench::most_ops_per_round}));
  EXPECT_EQ(bench::ops_per_round({5e-3, 9e-3}), (std::vector<std::size_t>{2, 1}));
  EXPECT_THROW(static_cast<void>(bench::ops_per_round({})), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(bench::ops_per_round({1e-3, 0.0})), std::invalid_argument);
}

TEST(OverlapFigures, StreamsThatKeepTheirPaceOverlapFullyAndTakingTurnsOnce) {
  // Two 1 ms streams done in 1 ms at once: 2 streams at once, each at its pace alone.
  const bench::OverlapFigures full = bench::overlap_figures({1e-3, 1e-3}, {1e-3, 1e-3}, 1e-3);
  EXPECT_DOUBLE_EQ(full.overlap, 2.0);
  EXPECT_DOUBLE_EQ(full.overlap_ideal, 2.0);
  EXPECT_EQ(full.pct_of_alone, (std::vector<double>{100.0, 100.0}));
  EXPECT_DOUBLE_EQ(full.slowest_pct_of_alone, 100.0);
  // Sharing one link: each at half its pace, the round as long as both in turn.
  const bench::OverlapFigures shared = bench::overlap_figures({1e-3, 1e-3}, {2e-3, 2e-3}, 2e-3);
  EXPECT_DOUBLE_EQ(shared.overlap, 1.0);
  EXPECT_EQ(shared.pct_of_alone, (std::vector<double>{50.0, 50.0}));
  // A shorter stream: the ideal is the sum over the longest.
  const bench::OverlapFigures uneven =
      bench::overlap_figures({1e-3, 0.5e-3, 1e-3}, {1.25e-3, 0.5e-3, 1e-3}, 1.25e-3);
  EXPECT_DOUBLE_EQ(uneven.overlap, 2.0);
  EXPECT_DOUBLE_EQ(uneven.overlap_ideal, 2.5);
  EXPECT_DOUBLE_EQ(uneven.slowest_pct_of_alone, 80.0);
  EXPECT_THROW(static_cast<void>(bench::overlap_figures({1e-3}, {1e-3, 1e-3}, 1e-3)),
               std::invalid_argument);
  EXPECT_THROW(static_cast<void>(bench::overlap_figures({1e-3}, {1e-3}, 0.0)),
               std::invalid_argument);
}

TEST(OverlapSizes, EachSizeIsAWholeNumberOfFloats) {
  EXPECT_EQ(bench::overlap_size_args("1M,64M"),
            (std::vector<std::int64_t>{1 << 20, std::int64_t{64} << 20}));
  EXPECT_EQ(bench::overlap_size_args(bench::overlap_sizes_flag().default_value),
            (std::vector<std::int64_t>{1 << 20, std::int64_t{64} << 20}));
  try {
    static_cast<void>(bench::overlap_size_args("4K,6"));
    ADD_FAILURE() << "6 bytes was taken";
  } catch (const UsageError& error) {
    EXPECT_STREQ(error.what(), "--overlap-sizes=4K,6: 6 bytes is not a whole number of 4-byte "
                               "floats");
  }
  EXPECT_THROW(static_cast<void>(bench::overlap_size_args("0")), UsageError);
}

TEST(OverlapSizes, TheFlagNamesEveryCombinationAtEachSize) {
  const Finished listed = run_process({GPUBENCH_BINARY, "--benchmark_list_tests",
                                       "--benchmark_filter=^overlap/", "--overlap-sizes=4K,16M"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  for (const char* combo :
       {"HtoD_DtoH", "HtoD_saxpy", "DtoH_saxpy", "HtoD_DtoH_saxpy", "HtoDx2", "HtoDx4"}) {
    for (const char* size : {"4096", "16777216"}) {
      EXPECT_NE(listed.out.find(std::string("overlap/") + combo + "/" + size + "/"),
                std::string::npos)
          << combo << " " << size << "\n"
          << listed.out;
    }
  }
  const Finished bad =
      run_process({GPUBENCH_BINARY, "--benchmark_list_tests", "--overlap-sizes=6"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--overlap-sizes=6: 6 bytes is not a whole number"), std::string::npos)
      << bad.err;
}

} // namespace
} // namespace gpubench::testing
