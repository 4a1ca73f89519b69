#pragma once

#include "chase_records.hpp"

#include <cuda.h>

#include <cstdint>

namespace gpubench::bench {

// Launches of kernels/pointer_chase.cuh on `stream`, whose device must be current. `base` is
// that device's address for the chased memory; device buffers hold the other arrays.

// Writes the chain of `slots` slots from the successors at `successor` (std::uint32_t each).
void chase_link_launch(std::uint64_t base, CUdeviceptr successor, std::uint64_t slots, int sm_count,
                       CUstream stream);

// Chases `count` stretches (ChaseSegment each at `segments`), one thread each, into `walks`.
void chase_segments_launch(std::uint64_t base, std::uint64_t slots, CUdeviceptr segments,
                           CUdeviceptr walks, std::uint32_t count, std::uint64_t start,
                           CUstream stream);

// One thread: the timed chase from the ChaseCursor at `cursor`, timings into the `capacity`
// ChaseTiming records at `timings`.
void chase_timed_launch(CUdeviceptr cursor, CUdeviceptr timings, std::uint32_t capacity,
                        std::uint64_t warm_loads, std::uint64_t timed_loads, CUstream stream);

} // namespace gpubench::bench
