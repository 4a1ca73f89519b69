#pragma once

#include "gpu_loop_state.hpp"

#include <cuda.h>

#include <array>
#include <memory>

namespace gpubench::bench {

// One way of running a loop of `iterations` kernels, each one iteration (gpu_loop.cuh). run()
// queues one whole loop on the stream it was made for, `remaining` armed first; the loop has
// finished when the stream has.
class GpuLoop {
public:
  GpuLoop() = default;
  GpuLoop(const GpuLoop&) = delete;
  GpuLoop& operator=(const GpuLoop&) = delete;
  virtual ~GpuLoop() = default;
  virtual void run() = 0;
};

// launch/gpu_loop/<driver>: who drives the loop. `host_driven`: the host issues every iteration,
// so the host's pace can set the loop's. make() builds the driver's graphs (instantiated and, for
// the GPU's own launches, uploaded); it throws CudaError where the driver or GPU refuses one.
struct GpuLoopDriver {
  const char* name;
  bool host_driven;
  std::unique_ptr<GpuLoop> (*make)(const GpuLoopState& state, CUstream stream);
};

// host_stream, host_graph, while_node, if_chain, tail_launch, fire_and_forget.
[[nodiscard]] const std::array<GpuLoopDriver, 6>& gpu_loop_drivers();

} // namespace gpubench::bench
