#pragma once

#include <cuda.h>

#include <cstddef>

namespace gpubench::bench {

// Launches managed_touch over `granules` granules of `granule_bytes` of the managed buffer at
// `src` (`bytes` in all), in the order of `walk` (a device array of `granules` granule numbers),
// copying them to the same offsets of `dst`: eight blocks of 256 threads per SM, or one block a
// granule where there are fewer.
void touch_launch(const void* src, CUdeviceptr dst, const unsigned int* walk,
                  std::size_t granule_bytes, std::size_t bytes, std::size_t granules, int sm_count,
                  CUstream stream);

} // namespace gpubench::bench
