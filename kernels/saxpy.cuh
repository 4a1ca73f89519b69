#pragma once

#include <cstdint>

extern "C" __global__ void saxpy(float alpha, float* x, float* y, int32_t n);

__global__ void saxpy_vec4(float alpha, const float* __restrict__ x, float* __restrict__ y,
                           int64_t n);

// saxpy_vec4_tile and saxpy_vec4_tile_streaming run with exactly saxpy_tile_threads threads per
// block and a grid of one block per saxpy_tile_floats elements, rounded up (at least one block):
// each thread does saxpy_tile_vectors_per_thread float4s of x and y.
inline constexpr int saxpy_tile_threads = 256;
inline constexpr int saxpy_tile_vectors_per_thread = 4;
inline constexpr int64_t saxpy_tile_floats =
    int64_t{4} * saxpy_tile_threads * saxpy_tile_vectors_per_thread;

__global__ void saxpy_vec4_tile(float alpha, const float* __restrict__ x, float* __restrict__ y,
                                int64_t n);
__global__ void saxpy_vec4_tile_streaming(float alpha, const float* __restrict__ x,
                                          float* __restrict__ y, int64_t n);
