#pragma once

#include <cstddef>

// Copies `bytes` from `src` to `dst` with SM loads and stores, for mapped host memory read or
// written across PCIe by the kernel itself (zero-copy) instead of by a copy engine.
__global__ void zerocopy_copy(const unsigned char* __restrict__ src,
                              unsigned char* __restrict__ dst, std::size_t bytes);
