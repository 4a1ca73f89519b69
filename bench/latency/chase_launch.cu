#include "chase_launch.hpp"

#include "cuda_error.hpp"
#include "pointer_chase.cuh"

#include <algorithm>

namespace gpubench::bench {

void chase_link_launch(std::uint64_t base, CUdeviceptr successor, std::uint64_t slots, int sm_count,
                       CUstream stream) {
  constexpr unsigned int threads = 256;
  const auto blocks = static_cast<unsigned int>(std::min<std::uint64_t>(
      static_cast<std::uint64_t>(sm_count) * 8, (slots + threads - 1) / threads));
  chase_link<<<blocks, threads, 0, stream>>>(
      base, reinterpret_cast<const std::uint32_t*>(successor), slots);
  GPUBENCH_CUDART(cudaGetLastError());
}

void chase_segments_launch(std::uint64_t base, std::uint64_t slots, CUdeviceptr segments,
                           CUdeviceptr walks, std::uint32_t count, std::uint64_t start,
                           CUstream stream) {
  constexpr unsigned int threads = 128;
  const unsigned int blocks = (count + threads - 1) / threads;
  chase_segments<<<blocks, threads, 0, stream>>>(
      base, slots, reinterpret_cast<const ChaseSegment*>(segments),
      reinterpret_cast<SegmentWalk*>(walks), count, start);
  GPUBENCH_CUDART(cudaGetLastError());
}

void chase_timed_launch(CUdeviceptr cursor, CUdeviceptr timings, std::uint32_t capacity,
                        std::uint64_t warm_loads, std::uint64_t timed_loads, CUstream stream) {
  chase_timed<<<1, 1, 0, stream>>>(reinterpret_cast<ChaseCursor*>(cursor),
                                   reinterpret_cast<ChaseTiming*>(timings), capacity, warm_loads,
                                   timed_loads);
  GPUBENCH_CUDART(cudaGetLastError());
}

} // namespace gpubench::bench
