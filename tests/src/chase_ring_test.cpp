// The ring a pointer chase follows and the checks that fail a chase which did not follow it:
// chased here on the CPU through memory laid out as the GPU's (kernels/pointer_chase.cu), so a
// broken permutation, a skipped load and a tampered checksum each show as the benchmark sees
// them.
#include "chase_ring.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <vector>

namespace gpubench {
namespace {

constexpr std::uint64_t base = 0x7f00'0000'0000;

// Chased memory as the GPU holds it: each slot's first word the address of the next slot.
std::vector<std::uint64_t> memory_of(const std::vector<std::uint32_t>& successor) {
  std::vector<std::uint64_t> next(successor.size());
  for (std::size_t s = 0; s < successor.size(); ++s) {
    next[s] = slot_address(base, successor[s]);
  }
  return next;
}

// One stretch chased as chase_segments does on the GPU.
SegmentWalk walk(const std::vector<std::uint64_t>& memory, const ChaseSegment& segment,
                 std::uint64_t start) {
  const std::uint64_t limit = slot_address(base, memory.size());
  std::uint64_t p = segment.start;
  SegmentWalk result{};
  for (; result.loads < segment.loads; ++result.loads) {
    if (p < base || p >= limit || (p - base) % chase_slot_bytes != 0) {
      break;
    }
    const std::uint64_t slot = (p - base) / chase_slot_bytes;
    result.slot_sum += slot;
    p = memory[slot];
    if (p == start && result.start_met_after == 0) {
      result.start_met_after = result.loads + 1;
    }
  }
  result.end = p;
  return result;
}

std::vector<SegmentWalk> walk_all(const std::vector<std::uint64_t>& memory, const ChaseRing& ring,
                                  const std::vector<ChaseSegment>& segments) {
  std::vector<SegmentWalk> walks;
  for (const ChaseSegment& segment : segments) {
    walks.push_back(walk(memory, segment, slot_address(base, ring.slot_after(0))));
  }
  return walks;
}

std::optional<std::string> chase(const std::vector<std::uint64_t>& memory, const ChaseRing& ring,
                                 std::size_t stretches) {
  const std::vector<ChaseSegment> segments = ring.segments(base, stretches);
  return check_full_cycle(ring, base, segments, walk_all(memory, ring, segments));
}

TEST(ChaseRing, IsOneCycleOverEverySlot) {
  for (const std::size_t slots : {2U, 3U, 5U, 1000U, 65537U}) {
    const ChaseRing ring(slots, 11);
    std::vector<std::uint32_t> sorted(ring.order().begin(), ring.order().end());
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::uint32_t> every(slots);
    std::iota(every.begin(), every.end(), 0U);
    EXPECT_EQ(sorted, every) << slots;

    const std::vector<std::uint32_t> successor = ring.successors();
    std::uint32_t slot = ring.slot_after(0);
    std::size_t loads = 0;
    do {
      slot = successor[slot];
      ++loads;
      EXPECT_EQ(slot, ring.slot_after(loads)) << slots;
    } while (slot != ring.slot_after(0) && loads <= slots);
    EXPECT_EQ(loads, slots);
  }
}

TEST(ChaseRing, IsReproducibleAndDrawsEveryCycleAlike) {
  EXPECT_TRUE(std::ranges::equal(ChaseRing(1000, 5).order(), ChaseRing(1000, 5).order()));
  EXPECT_FALSE(std::ranges::equal(ChaseRing(1000, 5).order(), ChaseRing(1000, 6).order()));
  // Four slots have 3! = 6 cyclic permutations: each drawn about a sixth of the time (1000 of
  // 6000, a standard deviation of 29).
  std::map<std::vector<std::uint32_t>, int> drawn;
  for (std::uint64_t seed = 0; seed < 6000; ++seed) {
    ++drawn[ChaseRing(4, seed).successors()];
  }
  EXPECT_EQ(drawn.size(), 6U);
  for (const auto& [cycle, times] : drawn) {
    EXPECT_GT(times, 850);
    EXPECT_LT(times, 1150);
  }
}

TEST(ChaseRing, RefusesTooFewOrTooManySlots) {
  EXPECT_THROW(ChaseRing(0, 1), std::invalid_argument);
  EXPECT_THROW(ChaseRing(1, 1), std::invalid_argument);
  EXPECT_THROW(ChaseRing(ChaseRing::max_slots + 1, 1), std::invalid_argument);
}

TEST(ChaseRing, StretchesCoverTheCycleOnceInOrder) {
  const ChaseRing ring(1001, 3);
  for (const std::size_t count : {1U, 7U, 1001U, 5000U}) {
    const std::vector<ChaseSegment> segments = ring.segments(base, count);
    EXPECT_EQ(segments.size(), std::min<std::size_t>(count, 1001));
    std::uint64_t position = 0;
    for (const ChaseSegment& segment : segments) {
      EXPECT_EQ(segment.start, slot_address(base, ring.slot_after(position)));
      EXPECT_GE(segment.loads, 1001 / segments.size());
      EXPECT_LE(segment.loads, 1001 / segments.size() + 1);
      position += segment.loads;
    }
    EXPECT_EQ(position, 1001U);
  }
}

TEST(FullCycleCheck, PassesTheRingItself) {
  const ChaseRing ring(4099, 9);
  const std::vector<std::uint64_t> memory = memory_of(ring.successors());
  for (const std::size_t stretches : {1U, 2U, 64U, 4099U}) {
    EXPECT_EQ(chase(memory, ring, stretches), std::nullopt) << stretches;
  }
}

TEST(FullCycleCheck, FailsABrokenPermutation) {
  const ChaseRing ring(4099, 9);
  for (const std::size_t stretches : {1U, 64U, 4099U}) {
    // Two slots' successors swapped: the cycle splits in two.
    std::vector<std::uint32_t> successor = ring.successors();
    std::swap(successor[10], successor[3000]);
    EXPECT_NE(chase(memory_of(successor), ring, stretches), std::nullopt) << stretches;
    // A slot that points at itself: its old successor is never reached.
    successor = ring.successors();
    successor[ring.slot_after(77)] = ring.slot_after(77);
    EXPECT_NE(chase(memory_of(successor), ring, stretches), std::nullopt) << stretches;
    // A link written one slot off.
    successor = ring.successors();
    successor[5] = (successor[5] + 1) % 4099;
    EXPECT_NE(chase(memory_of(successor), ring, stretches), std::nullopt) << stretches;
    // An address past the memory: the chase stops there, and says so.
    std::vector<std::uint64_t> memory = memory_of(ring.successors());
    memory[ring.slot_after(100)] = slot_address(base, 4099);
    const auto why = chase(memory, ring, stretches);
    ASSERT_NE(why, std::nullopt) << stretches;
    EXPECT_NE(why->find("not a slot of the chased memory"), std::string::npos) << *why;
  }
}

TEST(FullCycleCheck, FailsTwoCyclesWhoseIndicesSumAsOne) {
  // {0, 3, 5, 6} and {1, 2, 4, 7} both sum to 14: a chase of 8 loads around either 4-cycle
  // visits indices summing to 28, as one cycle over all 8 would. It returns to its start after
  // 4 loads.
  const ChaseRing ring(8, 1);
  const std::vector<std::vector<std::uint32_t>> cycles = {{0, 3, 5, 6}, {1, 2, 4, 7}};
  std::vector<std::uint32_t> successor(8);
  for (const auto& cycle : cycles) {
    for (std::size_t i = 0; i < cycle.size(); ++i) {
      successor[cycle[i]] = cycle[(i + 1) % cycle.size()];
    }
  }
  const auto why = chase(memory_of(successor), ring, 1);
  ASSERT_NE(why, std::nullopt);
  EXPECT_NE(why->find("returned to its start after 4 loads, not after all 8"), std::string::npos)
      << *why;
}

TEST(FullCycleCheck, FailsASkippedLoadOrAWrongChecksum) {
  const ChaseRing ring(4099, 9);
  const std::vector<std::uint64_t> memory = memory_of(ring.successors());
  const std::vector<ChaseSegment> segments = ring.segments(base, 64);
  std::vector<SegmentWalk> walks = walk_all(memory, ring, segments);
  ASSERT_EQ(check_full_cycle(ring, base, segments, walks), std::nullopt);

  // A stretch that made one load fewer ends one slot early.
  std::vector<ChaseSegment> shorter = segments;
  --shorter[20].loads;
  std::vector<SegmentWalk> skipped = walk_all(memory, ring, shorter);
  skipped[20].loads = segments[20].loads; // as if it had counted the load it skipped
  EXPECT_NE(check_full_cycle(ring, base, segments, skipped), std::nullopt);

  std::vector<SegmentWalk> tampered = walks;
  tampered[5].slot_sum += 1;
  EXPECT_NE(check_full_cycle(ring, base, segments, tampered), std::nullopt);
  tampered = walks;
  tampered.pop_back();
  EXPECT_NE(check_full_cycle(ring, base, segments, tampered), std::nullopt);
}

TEST(ChasePositionCheck, FindsASkippedOrRepeatedLoad) {
  const ChaseRing ring(777, 2);
  const std::vector<std::uint64_t> memory = memory_of(ring.successors());
  std::uint64_t position = slot_address(base, ring.slot_after(0));
  for (std::uint64_t loads = 1; loads <= 5000; ++loads) {
    position = memory[(position - base) / chase_slot_bytes];
    ASSERT_EQ(check_chase_position(ring, base, loads, position), std::nullopt) << loads;
  }
  EXPECT_NE(check_chase_position(ring, base, 4999, position), std::nullopt);
  EXPECT_NE(check_chase_position(ring, base, 5001, position), std::nullopt);
  EXPECT_NE(check_chase_position(ring, base, 5000, position + 8), std::nullopt);
  EXPECT_EQ(check_chase_position(ring, base, 5000 + 777, position), std::nullopt);
}

} // namespace
} // namespace gpubench
