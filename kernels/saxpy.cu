// The walk-through's kernel: one element per thread, kept exactly as the Driver API walk-through
// wrote it. The build compiles this file twice: into an embedded fatbin loaded with
// cuModuleLoadData, and into the program for <<<>>> launches.
#include <cstdint>

extern "C" __global__ void saxpy(float alpha, float* x, float* y, int32_t n) {
  const int32_t i = static_cast<int32_t>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) {
    y[i] = alpha * x[i] + y[i];
  }
}
