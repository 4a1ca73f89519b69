#pragma once

#include "chase_records.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gpubench {

// A uniformly random cyclic permutation of `slots` slots: the cycle a pointer chase follows,
// visiting every slot once per lap in an order no cache or prefetcher can anticipate.
//
// Sattolo's algorithm draws exactly this distribution, as each slot's successor. Built instead
// as its visiting order (a Fisher-Yates shuffle of the slots, each slot followed by the next in
// that order and the last by the first) the ring is the same random cycle, single by
// construction, and the order is what the checks read: where a chase of k loads from the start
// must stand is order[k mod slots]. Recovering the order from Sattolo's successors would take a
// dependent walk of every slot on the host, one random access after another (8 Mi for 1 GiB).
class ChaseRing {
public:
  static constexpr std::size_t min_slots = 2;
  static constexpr std::size_t max_slots = std::size_t{1} << 32U;

  // Draws the ring from the project's counter-based random words (random_fill.hpp), so a seed
  // gives the same ring everywhere. Throws std::invalid_argument for a count outside
  // [min_slots, max_slots].
  ChaseRing(std::size_t slots, std::uint64_t seed);

  [[nodiscard]] std::size_t slots() const noexcept { return order_.size(); }
  // The slot a chase from order[0] stands at after `loads` loads.
  [[nodiscard]] std::uint32_t slot_after(std::uint64_t loads) const noexcept {
    return order_[loads % order_.size()];
  }
  [[nodiscard]] std::span<const std::uint32_t> order() const noexcept { return order_; }
  // successor[s]: the slot after slot s, what the chased memory holds as addresses.
  [[nodiscard]] std::vector<std::uint32_t> successors() const;
  // `count` (at most slots()) consecutive stretches that chase the cycle exactly once from
  // order[0]: stretch k starts where stretch k - 1 ends, the longest one load longer than the
  // shortest. `base` is the chased memory's address.
  [[nodiscard]] std::vector<ChaseSegment> segments(std::uint64_t base, std::size_t count) const;

private:
  std::vector<std::uint32_t> order_;
};

// The address of slot `slot` of memory at `base`.
[[nodiscard]] constexpr std::uint64_t slot_address(std::uint64_t base, std::uint64_t slot) {
  return base + slot * chase_slot_bytes;
}

// Why `walks`, the GPU's reports of chasing `segments` (ring.segments(base, ...)) through the
// memory at `base`, are not one chase of the ring's whole cycle, if they are not. One chase
// means: every stretch made its loads and ended where the next one starts, the last back at the
// start, which no stretch stood at before; a cycle returned to first after exactly slots() loads
// holds every slot. The visited slot indices must also sum to 0 + 1 + ... + (slots - 1), which
// a skipped or repeated load breaks.
[[nodiscard]] std::optional<std::string> check_full_cycle(const ChaseRing& ring, std::uint64_t base,
                                                          std::span<const ChaseSegment> segments,
                                                          std::span<const SegmentWalk> walks);

// Why `position` is not where a chase of the ring through memory at `base`, started at its
// first slot, stands after `loads` loads, if it is not: a skipped or repeated load.
[[nodiscard]] std::optional<std::string> check_chase_position(const ChaseRing& ring,
                                                              std::uint64_t base,
                                                              std::uint64_t loads,
                                                              std::uint64_t position);

} // namespace gpubench
