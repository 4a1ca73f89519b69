#pragma once

// The records a pointer chase and its host share (kernels/pointer_chase.cuh writes them,
// src/chase_ring.hpp checks them): plain structs of fixed-width integers, the same in host and
// device code. Addresses are the chasing GPU's view of the chased memory (CUdeviceptr values).

#include <cstdint>

namespace gpubench {

// The chased memory is divided into slots of one cache line: the L1 and L2 line of every GPU
// since Volta is 128 bytes, so each load of a chase touches a line no other slot shares, and a
// chase over N slots needs N lines of whichever level holds it. A slot's first 8 bytes hold the
// address of the next slot of the cycle; the rest is never read.
inline constexpr std::uint64_t chase_slot_bytes = 128;

// One stretch of the verifying chase: from `start`, `loads` dependent loads.
struct ChaseSegment {
  std::uint64_t start;
  std::uint64_t loads;
};

// What a stretch of the verifying chase reports: where it ended, the loads it made (fewer than
// asked where it met an address that is not a slot of the chased memory, which it does not
// load), the sum of the indices of the slots it loaded from, and after how many loads it first
// stood at the cycle's start (0: never).
struct SegmentWalk {
  std::uint64_t end;
  std::uint64_t loads;
  std::uint64_t slot_sum;
  std::uint64_t start_met_after;
};

// The timed chase's state in device memory, carried from one launch to the next: the address it
// stands at and the launches made so far.
struct ChaseCursor {
  std::uint64_t position;
  std::uint64_t launches;
};

// The GPU's clocks around one launch's timed loads: SM cycles (clock64) and nanoseconds
// (%globaltimer).
struct ChaseTiming {
  std::int64_t cycles;
  std::uint64_t ns;
};

} // namespace gpubench
