#include "saxpy_launchers.hpp"

#include "cuda_error.hpp"
#include "saxpy.cuh"

#include <thrust/execution_policy.h>
#include <thrust/transform.h>

namespace gpubench::bench {
namespace {
struct SaxpyFma {
  float alpha;
  __device__ float operator()(float x, float y) const { return fmaf(alpha, x, y); }
};
} // namespace

void launch_saxpy_runtime(unsigned int grid, unsigned int block, CUstream stream, float alpha,
                          float* x, float* y, std::int32_t n) {
  saxpy<<<grid, block, 0, stream>>>(alpha, x, y, n);
  GPUBENCH_CUDART(cudaGetLastError());
}

void launch_saxpy_vec4(int grid, int block, CUstream stream, float alpha, const float* x, float* y,
                       std::int64_t n) {
  saxpy_vec4<<<grid, block, 0, stream>>>(alpha, x, y, n);
  GPUBENCH_CUDART(cudaGetLastError());
}

void thrust_saxpy(CUstream stream, float alpha, const float* x, float* y, std::size_t n) {
  // par_nosync: Thrust would otherwise synchronise after the algorithm, timing the host too.
  thrust::transform(thrust::cuda::par_nosync.on(stream), x, x + n, y, y, SaxpyFma{alpha});
  GPUBENCH_CUDART(cudaGetLastError());
}

int saxpy_vec4_blocks_per_sm(int block) {
  int blocks = 0;
  GPUBENCH_CUDART(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, saxpy_vec4, block, 0));
  return blocks;
}

} // namespace gpubench::bench
