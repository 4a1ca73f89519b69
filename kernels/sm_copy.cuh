#pragma once

#include <cstddef>

// Copies `bytes` from `src` to `dst` with SM loads and stores, four 16-byte vectors in flight
// per thread, for memory the copy engines are not asked to move (a peer GPU's memory through
// its mapping). Buffers are 16-byte aligned.
__global__ void sm_copy(const unsigned char* __restrict__ src, unsigned char* __restrict__ dst,
                        std::size_t bytes);
