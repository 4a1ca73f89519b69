#pragma once

#include <cuda.h>

#include <cstddef>

namespace gpubench::bench {

// Launches the gather kernel over `pieces` pieces of `piece_bytes` in slots of `slot_bytes` (a
// multiple of 16): 16-byte words where the piece is a whole number of them, else 4-byte words,
// else bytes, one thread a word, up to eight blocks per SM to keep many PCIe accesses in flight.
// `src_slots` and `dst_slots` are device arrays of `pieces` slot numbers each.
void gather_launch(CUdeviceptr src, CUdeviceptr dst, const unsigned int* src_slots,
                   const unsigned int* dst_slots, std::size_t slot_bytes, std::size_t piece_bytes,
                   std::size_t pieces, int sm_count, CUstream stream);

} // namespace gpubench::bench
