#include "global_timer.cuh"
#include "launch_mechanism.cuh"

#include <cooperative_groups.h>

// At namespace scope with plain names, so the host finds them with cuModuleGetGlobal.
__device__ unsigned long long gpubench_mechanism_launches = 0;
__device__ unsigned long long gpubench_mechanism_blocks = 0;
__device__ unsigned long long gpubench_mechanism_intact = 0;
__device__ MechanismStamp gpubench_mechanism_stamps[mechanism_launch_capacity];
// Blocks of a cooperative launch that reached its grid-wide barrier, per slot: a multiple of the
// grid's blocks once every launch on the slot has passed it.
__device__ unsigned long long gpubench_mechanism_arrivals[mechanism_launch_capacity];

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

// A cooperative launch proves itself by synchronising its grid: each block arrives, the grid
// waits at its barrier (cooperative_groups' grid sync, which only a cooperative launch may call),
// and then the count of arrivals on the slot holds the whole grid. Launches on one slot follow
// one another in the stream, so the count is a multiple of the grid's blocks. A plain launch has
// nothing to prove. cooperative_groups' is_valid() is no witness: on an H100, plain launches made
// after a cooperative one saw it true.
__device__ bool synchronised_grid(unsigned int slot) {
  if (threadIdx.x == 0) {
    atomicAdd(&gpubench_mechanism_arrivals[slot], 1ULL);
  }
  cooperative_groups::this_grid().sync();
  const unsigned long long arrived = atomicAdd(&gpubench_mechanism_arrivals[slot], 0ULL);
  return arrived % gridDim.x == 0;
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
  const bool in_capacity = args.launch < mechanism_launch_capacity;
  const bool synchronised =
      args.cooperative != 1U || (in_capacity && synchronised_grid(args.launch));
  if (threadIdx.x == 0) {
    const bool intact = args.marker == mechanism_marker && in_capacity &&
                        cluster_blocks() == args.cluster_blocks && synchronised;
    if (blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0) {
      atomicAdd(&gpubench_mechanism_launches, 1ULL);
    }
    atomicAdd(&gpubench_mechanism_blocks, 1ULL);
    if (intact) {
      atomicAdd(&gpubench_mechanism_intact, 1ULL);
    }
    // A launch past the capacity is counted, not stamped (and not intact).
    if (in_capacity) {
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
