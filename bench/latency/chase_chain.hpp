#pragma once

#include "chase_ring.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpubench::bench {

class Session;

// The rings chases follow on one GPU, kept for the last slot count: the 8 Mi slots of 1 GiB
// are drawn once for all repetitions and memories of a size.
class ChaseRings {
public:
  explicit ChaseRings(Session&) {}
  [[nodiscard]] const ChaseRing& of(std::size_t slots);

private:
  std::optional<ChaseRing> ring_;
};

// Links slot i of the memory at `base` (the chasing GPU's address for it) to slot successor[i]
// with a kernel on `chaser`, whose context must be current, and waits for it. Any successors:
// a ring's, or a broken one to check that a chase notices.
void write_successors(const std::vector<std::uint32_t>& successor, std::uint64_t base,
                      Session& chaser);

// Writes `ring` into the memory at `base` (write_successors of its successors).
void write_chain(const ChaseRing& ring, std::uint64_t base, Session& chaser);

// Chases the whole cycle once on `chaser`, in stretches that run at once (one thread each, so
// even 8 Mi slots of HBM take milliseconds), and returns why it did not follow the ring, if it
// did not (check_full_cycle). Every slot is loaded once: the TLB and, for memory that fits, the
// L2 hold what the timed chase will find there.
[[nodiscard]] std::optional<std::string> chase_full_cycle(const ChaseRing& ring, std::uint64_t base,
                                                          Session& chaser);

} // namespace gpubench::bench
