#include "gpu_loop_state.hpp"

#include "driver_api.hpp"

#include <cstddef>

namespace gpubench::bench {

GpuLoopState::GpuLoopState(unsigned int iterations)
    : iterations_(iterations), counters_(sizeof(GpuLoopCounters)),
      stamps_(std::size_t{iterations} * sizeof(GpuLoopStamp)) {
  clear();
}

GpuLoopArgs GpuLoopState::args() const noexcept {
  return {counters(), stamps_.as<GpuLoopStamp>(), iterations_, gpu_loop_token(iterations_)};
}

GpuLoopCounters* GpuLoopState::counters() const noexcept { return counters_.as<GpuLoopCounters>(); }

void GpuLoopState::arm(CUstream stream) const {
  GPUBENCH_CU(cuMemsetD32Async, counters_.ptr() + offsetof(GpuLoopCounters, remaining), iterations_,
              1, stream);
}

void GpuLoopState::clear() const {
  GPUBENCH_CU(cuCtxSynchronize);
  // The null stream, waited for below: nothing else runs in the context now.
  GPUBENCH_CU(cuMemsetD8Async, counters_.ptr(), 0, sizeof(GpuLoopCounters), nullptr);
  GPUBENCH_CU(cuMemsetD8Async, stamps_.ptr(), 0, std::size_t{iterations_} * sizeof(GpuLoopStamp),
              nullptr);
  GPUBENCH_CU(cuCtxSynchronize);
}

GpuLoopCounters GpuLoopState::read_counters() const {
  GPUBENCH_CU(cuCtxSynchronize);
  GpuLoopCounters counters{};
  GPUBENCH_CU(cuMemcpyDtoH, &counters, counters_.ptr(), sizeof(counters));
  return counters;
}

std::vector<GpuLoopStamp> GpuLoopState::read_stamps() const {
  GPUBENCH_CU(cuCtxSynchronize);
  std::vector<GpuLoopStamp> stamps(iterations_);
  GPUBENCH_CU(cuMemcpyDtoH, stamps.data(), stamps_.ptr(), stamps.size() * sizeof(GpuLoopStamp));
  return stamps;
}

} // namespace gpubench::bench
