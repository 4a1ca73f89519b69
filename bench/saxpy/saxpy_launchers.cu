#include "saxpy_launchers.hpp"

#include "cuda_error.hpp"
#include "saxpy.cuh"

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace gpubench::bench {
namespace {
struct SaxpyFma {
  float alpha;
  __device__ float operator()(float x, float y) const { return fmaf(alpha, x, y); }
};

// Element i's index where it differs, else n: the minimum over all elements is the first.
struct MismatchIndex {
  const float* expected;
  const float* actual;
  std::int64_t n;
  __device__ std::int64_t operator()(std::int64_t i) const {
    return actual[i] == expected[i] ? n : i;
  }
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

void launch_saxpy_vec4_tile(TileCaching caching, CUstream stream, float alpha, const float* x,
                            float* y, std::int64_t n) {
  const std::int64_t blocks =
      std::max<std::int64_t>(1, (n + saxpy_tile_floats - 1) / saxpy_tile_floats);
  if (blocks > std::numeric_limits<int>::max()) {
    throw std::length_error("saxpy_vec4_tile: N needs more blocks than a grid holds");
  }
  const auto grid = static_cast<unsigned int>(blocks);
  if (caching == TileCaching::streaming) {
    saxpy_vec4_tile_streaming<<<grid, saxpy_tile_threads, 0, stream>>>(alpha, x, y, n);
  } else {
    saxpy_vec4_tile<<<grid, saxpy_tile_threads, 0, stream>>>(alpha, x, y, n);
  }
  GPUBENCH_CUDART(cudaGetLastError());
}

std::size_t first_mismatch_on_device(CUstream stream, const float* expected, const float* actual,
                                     std::size_t n) {
  const auto count = static_cast<std::int64_t>(n);
  const std::int64_t first = thrust::transform_reduce(
      thrust::cuda::par.on(stream), thrust::counting_iterator<std::int64_t>(0),
      thrust::counting_iterator<std::int64_t>(count), MismatchIndex{expected, actual, count}, count,
      thrust::minimum<std::int64_t>());
  GPUBENCH_CUDART(cudaGetLastError());
  return static_cast<std::size_t>(first);
}

int saxpy_vec4_blocks_per_sm(int block) {
  int blocks = 0;
  GPUBENCH_CUDART(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, saxpy_vec4, block, 0));
  return blocks;
}

} // namespace gpubench::bench
