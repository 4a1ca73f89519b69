#include "touch_launch.hpp"

#include "cuda_error.hpp"
#include "managed_touch.cuh"

#include <algorithm>

namespace gpubench::bench {

void touch_launch(const void* src, CUdeviceptr dst, const unsigned int* walk,
                  std::size_t granule_bytes, std::size_t bytes, std::size_t granules, int sm_count,
                  CUstream stream) {
  constexpr unsigned int threads = 256;
  const auto blocks = static_cast<unsigned int>(
      std::clamp<std::size_t>(granules, 1, static_cast<std::size_t>(sm_count) * 8));
  managed_touch<<<blocks, threads, 0, stream>>>(static_cast<const unsigned char*>(src),
                                                reinterpret_cast<unsigned char*>(dst), walk,
                                                granule_bytes, bytes, granules);
  GPUBENCH_CUDART(cudaGetLastError());
}

} // namespace gpubench::bench
