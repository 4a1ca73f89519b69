#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>

namespace gpubench::bench {

// The saxpy variants that need nvcc to launch: <<<>>> and Thrust. saxpy.cpp holds the rest.
void launch_saxpy_runtime(unsigned int grid, unsigned int block, CUstream stream, float alpha,
                          float* x, float* y, std::int32_t n);
void launch_saxpy_vec4(int grid, int block, CUstream stream, float alpha, const float* x, float* y,
                       std::int64_t n);
void thrust_saxpy(CUstream stream, float alpha, const float* x, float* y, std::size_t n);

// Resident blocks of saxpy_vec4 per SM at `block` threads, for sizing its grid.
[[nodiscard]] int saxpy_vec4_blocks_per_sm(int block);

} // namespace gpubench::bench
