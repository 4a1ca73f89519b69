#include "timer_step.hpp"

#include "cuda_error.hpp"
#include "driver_api.hpp"
#include "family.hpp"
#include "launch_gap.cuh"
#include "memory.hpp"
#include "session.hpp"

namespace gpubench::bench {

TimerStep::TimerStep(Session& session) {
  const DeviceBuffer out(sizeof(std::uint64_t));
  CUdeviceptr step = out.ptr();
  unsigned int changes = 64;
  void* params[] = {&step, &changes};
  GPUBENCH_CU(cuLaunchKernel, driver_function(reinterpret_cast<const void*>(global_timer_step)), 1,
              1, 1, 1, 1, 1, 0, session.stream(), params, nullptr);
  GPUBENCH_CU(cuStreamSynchronize, session.stream());
  GPUBENCH_CU(cuMemcpyDtoH, &ns, out.ptr(), sizeof(ns));
}

} // namespace gpubench::bench
