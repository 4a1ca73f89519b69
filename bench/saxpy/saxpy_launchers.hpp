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

// saxpy_vec4_tile (plain loads and stores) or saxpy_vec4_tile_streaming (.cs loads and stores)
// over the exact grid they need: one 256-thread block per 4096 elements, rounded up.
enum class TileCaching { plain, streaming };
void launch_saxpy_vec4_tile(TileCaching caching, CUstream stream, float alpha, const float* x,
                            float* y, std::int64_t n);

// The index of the first element where `actual` differs from `expected` (float ==, as the CPU
// check compares), or n where none does: one reduction on the device, waited for.
[[nodiscard]] std::size_t first_mismatch_on_device(CUstream stream, const float* expected,
                                                   const float* actual, std::size_t n);

// Resident blocks of saxpy_vec4 per SM at `block` threads, for sizing its grid.
[[nodiscard]] int saxpy_vec4_blocks_per_sm(int block);

} // namespace gpubench::bench
