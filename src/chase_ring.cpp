#include "chase_ring.hpp"

#include "parallel.hpp"
#include "random_fill.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace gpubench {
namespace {

// A uniform index in [0, bound) from a 64-bit random word (Lemire's multiply-shift; the bias,
// below bound / 2^64, is far beneath anything a chase could show).
std::uint64_t below(std::uint64_t word, std::uint64_t bound) {
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(word) * bound) >> 64U);
}

// "slot 17" for an address that is a slot of the memory, the raw address otherwise.
std::string describe(std::uint64_t address, std::uint64_t base, std::size_t slots) {
  const std::uint64_t offset = address - base;
  if (address >= base && offset % chase_slot_bytes == 0 && offset / chase_slot_bytes < slots) {
    return fmt::format("slot {}", offset / chase_slot_bytes);
  }
  return fmt::format("address {:#x}, not a slot of the chased memory", address);
}

} // namespace

ChaseRing::ChaseRing(std::size_t slots, std::uint64_t seed) {
  if (slots < min_slots || slots > max_slots) {
    throw std::invalid_argument(
        fmt::format("a chase needs {} to {} slots, not {}", min_slots, max_slots, slots));
  }
  order_.resize(slots);
  for (std::size_t i = 0; i < slots; ++i) {
    order_[i] = static_cast<std::uint32_t>(i);
  }
  for (std::size_t i = slots - 1; i > 0; --i) {
    std::swap(order_[i], order_[below(random_word(seed, i), i + 1)]);
  }
}

std::vector<std::uint32_t> ChaseRing::successors() const {
  std::vector<std::uint32_t> successor(order_.size());
  const std::size_t last = order_.size() - 1;
  parallel_chunks(order_.size(), [&](std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) {
      successor[order_[k]] = order_[k == last ? 0 : k + 1];
    }
  });
  return successor;
}

std::vector<ChaseSegment> ChaseRing::segments(std::uint64_t base, std::size_t count) const {
  count = std::clamp<std::size_t>(count, 1, order_.size());
  std::vector<ChaseSegment> segments;
  segments.reserve(count);
  std::size_t position = 0;
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t loads = order_.size() / count + (k < order_.size() % count ? 1 : 0);
    segments.push_back({slot_address(base, order_[position]), loads});
    position += loads;
  }
  return segments;
}

std::optional<std::string> check_full_cycle(const ChaseRing& ring, std::uint64_t base,
                                            std::span<const ChaseSegment> segments,
                                            std::span<const SegmentWalk> walks) {
  const std::size_t slots = ring.slots();
  if (walks.size() != segments.size() || segments.empty()) {
    return fmt::format("the GPU reported {} stretches of the chase, not {}", walks.size(),
                       segments.size());
  }
  const std::uint64_t start = slot_address(base, ring.slot_after(0));
  const std::size_t count = segments.size();
  std::uint64_t loads_before = 0;
  std::uint64_t slot_sum = 0;
  for (std::size_t k = 0; k < count; ++k) {
    const ChaseSegment& segment = segments[k];
    const SegmentWalk& walk = walks[k];
    if (walk.loads != segment.loads) {
      return fmt::format("stretch {} of {} of the chase stopped after {} of its {} loads at {}",
                         k + 1, count, walk.loads, segment.loads, describe(walk.end, base, slots));
    }
    const bool last = k + 1 == count;
    if (!last && walk.start_met_after != 0) {
      return fmt::format("the chase returned to its start after {} loads, not after all {}: the "
                         "chain is not one cycle over every slot",
                         loads_before + walk.start_met_after, slots);
    }
    const std::uint64_t expected_end = last ? start : segments[k + 1].start;
    if (walk.end != expected_end) {
      return fmt::format("stretch {} of {} of the chase ends at {}, not at {} where {}", k + 1,
                         count, describe(walk.end, base, slots),
                         describe(expected_end, base, slots),
                         last ? "the cycle starts" : "the next stretch starts");
    }
    if (last && walk.start_met_after != walk.loads) {
      return fmt::format("the chase returned to its start after {} loads, not after all {}: the "
                         "chain is not one cycle over every slot",
                         loads_before + walk.start_met_after, slots);
    }
    loads_before += walk.loads;
    slot_sum += walk.slot_sum;
  }
  if (loads_before != slots) {
    return fmt::format("the chase's stretches made {} loads, not one per slot ({})", loads_before,
                       slots);
  }
  // At most 2^32 slots: the sum stays below 2^63.
  const std::uint64_t expected_sum = static_cast<std::uint64_t>(slots) * (slots - 1) / 2;
  if (slot_sum != expected_sum) {
    return fmt::format("the indices of the slots the chase loaded from sum to {}, not {}: it "
                       "skipped or repeated slots",
                       slot_sum, expected_sum);
  }
  return std::nullopt;
}

std::optional<std::string> check_chase_position(const ChaseRing& ring, std::uint64_t base,
                                                std::uint64_t loads, std::uint64_t position) {
  const std::uint64_t expected = slot_address(base, ring.slot_after(loads));
  if (position == expected) {
    return std::nullopt;
  }
  return fmt::format("after {} loads the chase stands at {}, not at {}: a load was skipped or "
                     "repeated",
                     loads, describe(position, base, ring.slots()),
                     describe(expected, base, ring.slots()));
}

} // namespace gpubench
