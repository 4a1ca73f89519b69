#include "global_timer.cuh"
#include "sm_clock_probe.cuh"

// At namespace scope with a plain name, so the host finds it with cuModuleGetGlobal.
__device__ SmClockSample gpubench_sm_clock_sample;

__global__ void sm_clock_probe(std::uint64_t window_ns) {
  // Opens on a tick: the first read after the timer changes.
  const std::uint64_t before = global_timer_ns();
  std::uint64_t start_ns = global_timer_ns();
  while (start_ns == before) {
    start_ns = global_timer_ns();
  }
  const long long start_cycles = clock64();
  // Closes on a tick too: the timer only changes at ticks, so the first read at or past the
  // window is the first after one.
  std::uint64_t end_ns = global_timer_ns();
  while (end_ns - start_ns < window_ns) {
    end_ns = global_timer_ns();
  }
  const long long end_cycles = clock64();
  gpubench_sm_clock_sample =
      SmClockSample{static_cast<std::uint64_t>(end_cycles - start_cycles), end_ns - start_ns};
}
