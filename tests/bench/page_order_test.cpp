// The managed family's walks over a buffer's granules, on the CPU: how many granules a size
// makes, and each order visiting every granule once; and its granule flag through the binary.
#include "page_order.hpp"
#include "process.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <numeric>
#include <set>
#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

using bench::granule_count;
using bench::page_walk;
using bench::PageOrder;

TEST(PageOrder, GranulesCoverTheBufferTheLastOneShorter) {
  EXPECT_EQ(granule_count(std::size_t{2} << 20, 4096), 512U);
  EXPECT_EQ(granule_count(std::size_t{2} << 20, std::size_t{2} << 20), 1U);
  EXPECT_EQ(granule_count(4097, 4096), 2U);
  EXPECT_EQ(granule_count(4, 65536), 1U);
}

TEST(PageOrder, NoWalkOfNothingOrPastThirtyTwoBitGranuleNumbers) {
  EXPECT_FALSE(granule_count(0, 4096));
  EXPECT_FALSE(granule_count(4096, 0));
  constexpr std::size_t most = std::numeric_limits<std::uint32_t>::max();
  EXPECT_EQ(granule_count(most, 1), most);
  EXPECT_FALSE(granule_count(most + 1, 1));
}

TEST(PageOrder, SequentialIsFirstToLast) {
  const std::vector<std::uint32_t> walk = page_walk(1000, PageOrder::sequential, 7);
  std::vector<std::uint32_t> expected(1000);
  std::iota(expected.begin(), expected.end(), std::uint32_t{0});
  EXPECT_EQ(walk, expected);
}

TEST(PageOrder, RandomVisitsEveryGranuleOnceScatteredTheSameForTheSameSeed) {
  const std::vector<std::uint32_t> walk = page_walk(65536, PageOrder::random, 7);
  ASSERT_EQ(walk.size(), 65536U);
  const std::set<std::uint32_t> distinct(walk.begin(), walk.end());
  EXPECT_EQ(distinct.size(), 65536U);
  EXPECT_EQ(*distinct.rbegin(), 65535U);
  // Scattered: hardly any granule follows its predecessor's neighbour.
  std::size_t neighbours = 0;
  for (std::size_t i = 1; i < walk.size(); ++i) {
    neighbours += walk[i] == walk[i - 1] + 1 ? 1 : 0;
  }
  EXPECT_LT(neighbours, 64U);
  EXPECT_EQ(walk, page_walk(65536, PageOrder::random, 7));
  EXPECT_NE(walk, page_walk(65536, PageOrder::random, 8));
}

TEST(PageOrder, WalksOfOneOrNoGranule) {
  EXPECT_EQ(page_walk(1, PageOrder::random, 7), std::vector<std::uint32_t>{0});
  EXPECT_TRUE(page_walk(0, PageOrder::random, 7).empty());
}

TEST(PageOrder, TheNamesCarryOrderGranuleAndAdvice) {
  const Finished run = run_process({GPUBENCH_BINARY, "--benchmark_list_tests",
                                    "--benchmark_filter=^managed/HtoD/gpu_touch/random/",
                                    "--managed-granules=64K", "--managed-sizes=8M"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("managed/HtoD/gpu_touch/random/granule:65536/read_mostly/8388608"),
            std::string::npos)
      << run.out;
}

TEST(PageOrder, AGranuleOfPartPagesIsOneLineNamingTheFlag) {
  const Finished run =
      run_process({GPUBENCH_BINARY, "--benchmark_list_tests", "--managed-granules=4K,6000"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--managed-granules=4K,6000: a granule of 6000 bytes is not a whole "
                         "number of 4096-byte pages"),
            std::string::npos)
      << run.err;
}

} // namespace
} // namespace gpubench::testing
