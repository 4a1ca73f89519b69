#include "gpu_loop_chevron.hpp"

namespace gpubench::bench {

void chevron_gpu_loop_step(CUstream stream, const GpuLoopArgs& args) {
  gpu_loop_step<<<1, 1, 0, stream>>>(args);
}

} // namespace gpubench::bench
