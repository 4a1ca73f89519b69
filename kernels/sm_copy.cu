#include "sm_copy.cuh"

#include <cstdint>

__global__ void sm_copy(const unsigned char* __restrict__ src, unsigned char* __restrict__ dst,
                        std::size_t bytes) {
  constexpr std::size_t unroll = 4;
  const std::size_t vectors = bytes / sizeof(uint4);
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const auto* src4 = reinterpret_cast<const uint4*>(src);
  auto* dst4 = reinterpret_cast<uint4*>(dst);
  // Each round a thread loads `unroll` vectors a grid apart, then stores them: the loads are in
  // flight together, which a remote link's latency needs.
  std::size_t i = thread;
  for (; i + (unroll - 1) * threads < vectors; i += unroll * threads) {
    uint4 v[unroll];
#pragma unroll
    for (std::size_t k = 0; k < unroll; ++k) {
      v[k] = src4[i + k * threads];
    }
#pragma unroll
    for (std::size_t k = 0; k < unroll; ++k) {
      dst4[i + k * threads] = v[k];
    }
  }
  for (; i < vectors; i += threads) {
    dst4[i] = src4[i];
  }
  const std::size_t tail = vectors * sizeof(uint4) + thread;
  if (tail < bytes) {
    dst[tail] = src[tail];
  }
}
