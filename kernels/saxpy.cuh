#pragma once

#include <cstdint>

extern "C" __global__ void saxpy(float alpha, float* x, float* y, int32_t n);

__global__ void saxpy_vec4(float alpha, const float* __restrict__ x, float* __restrict__ y,
                           int64_t n);
