#include "runtime_kernels.hpp"

#include "cuda_error.hpp"
#include "launch_probe.cuh"
#include "saxpy.cuh"
#include "stream_gate.cuh"
#include "zerocopy.cuh"

namespace gpubench::bench {

const std::vector<RuntimeKernel>& runtime_kernels() {
  static const std::vector<RuntimeKernel> kernels{
      {"saxpy", reinterpret_cast<const void*>(saxpy)},
      {"saxpy_vec4", reinterpret_cast<const void*>(saxpy_vec4)},
      {"launch_probe_empty", reinterpret_cast<const void*>(launch_probe_empty)},
      {"launch_probe_8", reinterpret_cast<const void*>(launch_probe_8)},
      {"launch_probe_256", reinterpret_cast<const void*>(launch_probe_256)},
      {"launch_probe_4096", reinterpret_cast<const void*>(launch_probe_4096)},
      {"launch_probe_32764", reinterpret_cast<const void*>(launch_probe_32764)},
      {"stream_gate", reinterpret_cast<const void*>(stream_gate)},
      {"zerocopy_copy", reinterpret_cast<const void*>(zerocopy_copy)},
  };
  return kernels;
}

CUfunction driver_function(const void* symbol) {
  cudaFunction_t function = nullptr;
  GPUBENCH_CUDART(cudaGetFuncBySymbol(&function, symbol));
  return reinterpret_cast<CUfunction>(function);
}

} // namespace gpubench::bench
