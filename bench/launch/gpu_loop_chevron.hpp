#pragma once

#include "gpu_loop.cuh"

#include <cuda.h>

namespace gpubench::bench {

// One gpu_loop_step launched with <<<1, 1, 0, stream>>> (nvcc compiles the call; everything
// else lives in .cpp files).
void chevron_gpu_loop_step(CUstream stream, const GpuLoopArgs& args);

} // namespace gpubench::bench
