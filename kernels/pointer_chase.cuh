#pragma once

#include "chase_records.hpp"

#include <cstdint>

// A pointer chase through memory laid out as chase_records.hpp says: each slot's first word
// the address of the next slot of a cyclic permutation (src/chase_ring.hpp).

// Writes the chain: slot s of the memory at `base` gets the address of slot successor[s]. One
// thread per slot; `base` is this GPU's address for the memory, wherever it lies.
__global__ void chase_link(std::uint64_t base, const std::uint32_t* successor, std::uint64_t slots);

// The verifying chase: thread k chases stretch k (`count` of them, ChaseRing::segments) and
// reports it (SegmentWalk), the indices of the slots it loads from summed. It never loads from
// an address outside the `slots` slots at `base` or off a slot's start: it stops there, so a
// broken chain fails the check instead of faulting the GPU. `start` is the cycle's first slot.
__global__ void chase_segments(std::uint64_t base, std::uint64_t slots,
                               const gpubench::ChaseSegment* segments, gpubench::SegmentWalk* walks,
                               std::uint32_t count, std::uint64_t start);

// The timed chase, for one thread: from cursor->position, `warm_loads` dependent loads, then
// `timed_loads` between reads of the GPU's clocks (clock64 in SM cycles, %globaltimer in ns),
// written to timings[launch % capacity]; the cursor moves on to where the chase stands and
// counts the launch.
__global__ void chase_timed(gpubench::ChaseCursor* cursor, gpubench::ChaseTiming* timings,
                            std::uint32_t capacity, std::uint64_t warm_loads,
                            std::uint64_t timed_loads);
