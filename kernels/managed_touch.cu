#include "managed_touch.cuh"

#include <cstdint>

__global__ void managed_touch(const unsigned char* __restrict__ src,
                              unsigned char* __restrict__ dst, const unsigned int* walk,
                              std::size_t granule_bytes, std::size_t bytes, std::size_t granules) {
  for (std::size_t step = blockIdx.x; step < granules; step += gridDim.x) {
    const std::size_t begin = static_cast<std::size_t>(walk[step]) * granule_bytes;
    const std::size_t end = begin + granule_bytes < bytes ? begin + granule_bytes : bytes;
    // Granules start at multiples of a page: their 16-byte words are aligned.
    const std::size_t vectors = (end - begin) / sizeof(uint4);
    const auto* src4 = reinterpret_cast<const uint4*>(src + begin);
    auto* dst4 = reinterpret_cast<uint4*>(dst + begin);
    for (std::size_t i = threadIdx.x; i < vectors; i += blockDim.x) {
      dst4[i] = src4[i];
    }
    for (std::size_t i = begin + vectors * sizeof(uint4) + threadIdx.x; i < end; i += blockDim.x) {
      dst[i] = src[i];
    }
  }
}
