#include "sm_copy_launch.hpp"

#include "cuda_error.hpp"
#include "sm_copy.cuh"

#include <algorithm>

namespace gpubench::bench {

void sm_copy_launch(CUdeviceptr src, CUdeviceptr dst, std::size_t bytes, int sm_count,
                    CUstream stream) {
  constexpr int threads = 512;
  // Four blocks of 512 threads per SM, each thread with four 16-byte loads in flight.
  const std::size_t vectors = bytes / 16 + 1;
  const auto blocks = static_cast<unsigned int>(std::min<std::size_t>(
      static_cast<std::size_t>(sm_count) * 4, (vectors + threads - 1) / threads));
  sm_copy<<<blocks, threads, 0, stream>>>(reinterpret_cast<const unsigned char*>(src),
                                          reinterpret_cast<unsigned char*>(dst), bytes);
  GPUBENCH_CUDART(cudaGetLastError());
}

} // namespace gpubench::bench
