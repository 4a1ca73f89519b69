#pragma once

#include <cstdint>

// The GPU's global timer (%globaltimer), in nanoseconds. It advances in steps (32 ns on the
// H200: launch/gpu_gap's timer_step_ns); the "memory" clobber keeps loads and stores on their
// side of the read.
__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns)::"memory");
  return ns;
}
