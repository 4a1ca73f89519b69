#include "global_timer.cuh"
#include "launch_gap.cuh"

// At namespace scope with plain names, so the host finds them with cuModuleGetGlobal.
__device__ unsigned int gpubench_gap_count = 0;
__device__ GapStamp gpubench_gap_stamps[gap_stamp_capacity];

__global__ void launch_gap_stamp() {
  const std::uint64_t start = global_timer_ns();
  const unsigned int slot = atomicAdd(&gpubench_gap_count, 1U);
  const std::uint64_t end = global_timer_ns();
  if (slot < gap_stamp_capacity) {
    gpubench_gap_stamps[slot] = GapStamp{start, end};
  }
}

__global__ void global_timer_step(std::uint64_t* step_ns, unsigned int changes) {
  std::uint64_t smallest = ~std::uint64_t{0};
  std::uint64_t last = global_timer_ns();
  for (unsigned int seen = 0; seen < changes;) {
    const std::uint64_t now = global_timer_ns();
    if (now != last) {
      smallest = now - last < smallest ? now - last : smallest;
      last = now;
      ++seen;
    }
  }
  *step_ns = smallest;
}
