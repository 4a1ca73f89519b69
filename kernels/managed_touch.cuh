#pragma once

#include <cstddef>

// managed/HtoD/gpu_touch: copies a managed buffer of `bytes` into device memory granule by
// granule, in the order `walk` gives (`granules` granule numbers): each block takes the next
// granule of the walk and its threads copy it with 16-byte loads, so one block's faults cover
// one granule, and the granules in flight at once are consecutive entries of the walk. What a
// kernel touching host-resident pages makes the driver migrate, with every byte it read kept
// for the check.
__global__ void managed_touch(const unsigned char* __restrict__ src,
                              unsigned char* __restrict__ dst, const unsigned int* walk,
                              std::size_t granule_bytes, std::size_t bytes, std::size_t granules);
