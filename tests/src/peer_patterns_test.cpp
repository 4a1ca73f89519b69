#include "peer_patterns.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace gpubench {
namespace {

using Pairs = std::vector<PeerPair>;

TEST(PeerPatterns, EightGpusEachPatternLoadsWhatItNames) {
  const std::vector<int> devices{0, 1, 2, 3, 4, 5, 6, 7};
  const std::vector<PeerPattern> patterns = peer_patterns(devices);
  ASSERT_EQ(patterns.size(), 17U); // allto<d> and <d>toall for each, and bisect
  std::set<std::string> names;
  for (const PeerPattern& pattern : patterns) {
    names.insert(pattern.name);
    std::set<PeerPair> distinct(pattern.pairs.begin(), pattern.pairs.end());
    EXPECT_EQ(distinct.size(), pattern.pairs.size()) << pattern.name;
    for (const PeerPair& pair : pattern.pairs) {
      EXPECT_NE(pair.source, pair.destination) << pattern.name;
    }
  }
  EXPECT_EQ(names.size(), patterns.size());
  EXPECT_EQ(patterns[3].name, "allto3");
  EXPECT_EQ(patterns[3].pairs, (Pairs{{0, 3}, {1, 3}, {2, 3}, {4, 3}, {5, 3}, {6, 3}, {7, 3}}));
  EXPECT_EQ(patterns[8 + 5].name, "5toall");
  EXPECT_EQ(patterns[8 + 5].pairs, (Pairs{{5, 0}, {5, 1}, {5, 2}, {5, 3}, {5, 4}, {5, 6}, {5, 7}}));
  // Bisection: every device sends once and receives once, to the other half.
  const PeerPattern& bisect = patterns.back();
  EXPECT_EQ(bisect.name, "bisect");
  EXPECT_EQ(bisect.pairs, (Pairs{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {4, 0}, {5, 1}, {6, 2}, {7, 3}}));
}

TEST(PeerPatterns, OrdinalsAreTheDevicesChosenNotTheirPlaces) {
  const std::vector<PeerPattern> patterns = peer_patterns({2, 5, 7});
  EXPECT_EQ(patterns[0].name, "allto2");
  EXPECT_EQ(patterns[0].pairs, (Pairs{{5, 2}, {7, 2}}));
  EXPECT_EQ(patterns[4].name, "5toall");
  EXPECT_EQ(patterns[4].pairs, (Pairs{{5, 2}, {5, 7}}));
  // An odd count: each device to the one a floor of half the list further on.
  EXPECT_EQ(patterns.back().pairs, (Pairs{{2, 5}, {5, 7}, {7, 2}}));
}

TEST(PeerPatterns, TwoGpusBisectBothWays) {
  EXPECT_EQ(peer_patterns({0, 1}).back().pairs, (Pairs{{0, 1}, {1, 0}}));
}

TEST(PeerPatterns, RepresentativePairsAreNeighboursAndTheFarthestEachWay) {
  EXPECT_EQ(representative_pairs({0, 1, 2, 3, 4, 5, 6, 7}),
            (Pairs{{0, 1}, {1, 0}, {0, 7}, {7, 0}}));
  EXPECT_EQ(representative_pairs({0, 1}), (Pairs{{0, 1}, {1, 0}}));
  EXPECT_EQ(representative_pairs({3, 6, 4}), (Pairs{{3, 6}, {6, 3}, {3, 4}, {4, 3}}));
  EXPECT_TRUE(representative_pairs({0}).empty());
}

// What a size's fit is checked against before anything is allocated: an all-to-one on eight GPUs
// lands seven copies on its destination, each in a buffer of its own.
TEST(PeerPatterns, BuffersToAllocateCountEveryCopyLandingOnAGpu) {
  const auto none_held = [](int) { return false; };
  const std::vector<PeerPattern> eight = peer_patterns({0, 1, 2, 3, 4, 5, 6, 7});
  const std::map<int, std::size_t> all_to_3 = buffers_to_allocate(eight[3].pairs, none_held);
  EXPECT_EQ(all_to_3.at(3), 2U + 6U);
  for (const int source : {0, 1, 2, 4, 5, 6, 7}) {
    EXPECT_EQ(all_to_3.at(source), 2U) << source;
  }
  // 5toall: one copy lands on each other GPU.
  for (const auto& [ordinal, buffers] : buffers_to_allocate(eight[8 + 5].pairs, none_held)) {
    EXPECT_EQ(buffers, 2U) << ordinal;
  }
  // One pair both ways (bidir), and the same where GPU 1 holds buffers of the size already.
  EXPECT_EQ(buffers_to_allocate({{0, 1}, {1, 0}}, none_held),
            (std::map<int, std::size_t>{{0, 2}, {1, 2}}));
  EXPECT_EQ(buffers_to_allocate({{0, 1}, {1, 0}}, [](int ordinal) { return ordinal == 1; }),
            (std::map<int, std::size_t>{{0, 2}}));
  // A second copy landing on a GPU that holds the size still needs a buffer of its own there.
  EXPECT_EQ(buffers_to_allocate({{0, 2}, {1, 2}}, [](int) { return true; }),
            (std::map<int, std::size_t>{{2, 1}}));
  EXPECT_TRUE(buffers_to_allocate({}, none_held).empty());
}

} // namespace
} // namespace gpubench
