#include "zerocopy.cuh"

#include <cstdint>

__global__ void zerocopy_copy(const unsigned char* __restrict__ src,
                              unsigned char* __restrict__ dst, std::size_t bytes) {
  // 16-byte accesses make the fewest PCIe transactions; buffers are page aligned.
  const std::size_t vectors = bytes / sizeof(uint4);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const auto* src4 = reinterpret_cast<const uint4*>(src);
  auto* dst4 = reinterpret_cast<uint4*>(dst);
  for (std::size_t i = first; i < vectors; i += stride) {
    dst4[i] = src4[i];
  }
  const std::size_t tail = vectors * sizeof(uint4) + first;
  if (tail < bytes) {
    dst[tail] = src[tail];
  }
}
