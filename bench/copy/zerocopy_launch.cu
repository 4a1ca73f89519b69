#include "zerocopy_launch.hpp"

#include "cuda_error.hpp"
#include "zerocopy.cuh"

#include <algorithm>

namespace gpubench::bench {

void zerocopy_launch(const unsigned char* src, unsigned char* dst, std::size_t bytes, int sm_count,
                     CUstream stream) {
  constexpr int threads = 256;
  // Eight blocks per SM saturate PCIe; small copies need no more blocks than 16-byte vectors.
  const std::size_t vectors = bytes / 16 + 1;
  const auto blocks = static_cast<unsigned int>(std::min<std::size_t>(
      static_cast<std::size_t>(sm_count) * 8, (vectors + threads - 1) / threads));
  zerocopy_copy<<<blocks, threads, 0, stream>>>(src, dst, bytes);
  GPUBENCH_CUDART(cudaGetLastError());
}

} // namespace gpubench::bench
