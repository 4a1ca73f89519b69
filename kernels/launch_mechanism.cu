#include "global_timer.cuh"
#include "launch_mechanism.cuh"

#include <cooperative_groups.h>

// At namespace scope with plain names, so the host finds them with cuModuleGetGlobal.
__device__ unsigned long long gpubench_mechanism_launches = 0;
__device__ unsigned long long gpubench_mechanism_blocks = 0;
__device__ unsigned long long gpubench_mechanism_intact = 0;
__device__ MechanismStamp gpubench_mechanism_stamps[mechanism_launch_capacity];

namespace {

// cudaTriggerProgrammaticLaunchCompletion and cudaGridDependencySynchronize, spelled as the PTX
// they are so that the guard is this file's own.
__device__ __forceinline__ void trigger_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Returns at once where the launch has no programmatic dependency.
__device__ __forceinline__ void wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ unsigned int cluster_blocks() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned int blocks;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(blocks));
  return blocks;
#else
  return 1;
#endif
}

} // namespace

__global__ void launch_mechanism_stamp(MechanismArgs args) {
  const std::uint64_t start = global_timer_ns();
  if (args.trigger == PdlTrigger::early) {
    trigger_dependents();
  }
  wait_for_previous_grid();
  const std::uint64_t waited = global_timer_ns();
  while (global_timer_ns() - waited < args.body_ns) {
  }
  if (threadIdx.x == 0) {
    const bool cooperative = cooperative_groups::this_grid().is_valid();
    const bool intact =
        args.marker == mechanism_marker && args.launch < mechanism_launch_capacity &&
        cluster_blocks() == args.cluster_blocks && cooperative == (args.cooperative == 1U);
    if (blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0) {
      atomicAdd(&gpubench_mechanism_launches, 1ULL);
    }
    atomicAdd(&gpubench_mechanism_blocks, 1ULL);
    if (intact) {
      atomicAdd(&gpubench_mechanism_intact, 1ULL);
    }
    // A launch past the capacity is counted, not stamped (and not intact).
    if (args.launch < mechanism_launch_capacity) {
      MechanismStamp& stamp = gpubench_mechanism_stamps[args.launch];
      atomicMin(reinterpret_cast<unsigned long long*>(&stamp.first_start_ns), start);
      atomicMin(reinterpret_cast<unsigned long long*>(&stamp.first_waited_ns), waited);
      atomicAdd(&stamp.blocks, 1U);
      if (intact) {
        atomicAdd(&stamp.intact, 1U);
      }
      // Read after the other stamps are on their way, so the end is the block's last act but
      // this one store, as launch_gap_stamp's is.
      const std::uint64_t end = global_timer_ns();
      atomicMax(reinterpret_cast<unsigned long long*>(&stamp.last_end_ns), end);
    }
    // The block's other threads have exited or are about to, which counts as their trigger:
    // thread 0's is the block's last act.
    if (args.trigger == PdlTrigger::late) {
      trigger_dependents();
    }
  }
}
