#pragma once

#include <cstdint>

// The SM clock as a kernel sees it: one thread counts the SM's cycles (clock64) across a window
// of the GPU's global timer (%globaltimer, nanoseconds), both read at the same points, and
// writes the two spans to gpubench_sm_clock_sample (a namespace-scope __device__ variable in
// sm_clock_probe.cu's module; the host reaches it with cuModuleGetGlobal). The window opens and
// closes at a tick of the global timer, so the timer's step (32 ns on the H200) is not an error
// of the span beyond the few cycles a tick takes to be seen.
struct SmClockSample {
  std::uint64_t cycles;
  std::uint64_t ns;
};

__global__ void sm_clock_probe(std::uint64_t window_ns);
