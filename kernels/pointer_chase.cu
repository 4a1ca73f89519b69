#include "global_timer.cuh"
#include "pointer_chase.cuh"

namespace {

// The SM clock as inline PTX with a memory clobber (the global timer too, global_timer.cuh),
// so the compiler keeps every load of the chase on its side of them.
__device__ __forceinline__ std::int64_t sm_cycles() {
  std::int64_t cycles;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(cycles)::"memory");
  return cycles;
}

// A plain load through a generic pointer, as a program following its own pointers makes it
// (and as gpu-benches' gpu-latency and nvbandwidth's latency tests do): cached in L1 by the
// default caching of global loads.
__device__ __forceinline__ std::uint64_t next(std::uint64_t slot) {
  return *reinterpret_cast<const std::uint64_t*>(slot);
}

} // namespace

__global__ void chase_link(std::uint64_t base, const std::uint32_t* successor,
                           std::uint64_t slots) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t s = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       s < slots; s += stride) {
    *reinterpret_cast<std::uint64_t*>(base + s * gpubench::chase_slot_bytes) =
        base + successor[s] * gpubench::chase_slot_bytes;
  }
}

__global__ void chase_segments(std::uint64_t base, std::uint64_t slots,
                               const gpubench::ChaseSegment* segments, gpubench::SegmentWalk* walks,
                               std::uint32_t count, std::uint64_t start) {
  const std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= count) {
    return;
  }
  const std::uint64_t limit = base + slots * gpubench::chase_slot_bytes;
  const gpubench::ChaseSegment segment = segments[k];
  std::uint64_t p = segment.start;
  gpubench::SegmentWalk walk{};
  for (; walk.loads < segment.loads; ++walk.loads) {
    if (p < base || p >= limit || (p - base) % gpubench::chase_slot_bytes != 0) {
      break;
    }
    walk.slot_sum += (p - base) / gpubench::chase_slot_bytes;
    p = next(p);
    if (p == start && walk.start_met_after == 0) {
      walk.start_met_after = walk.loads + 1;
    }
  }
  walk.end = p;
  walks[k] = walk;
}

__global__ void chase_timed(gpubench::ChaseCursor* cursor, gpubench::ChaseTiming* timings,
                            std::uint32_t capacity, std::uint64_t warm_loads,
                            std::uint64_t timed_loads) {
  std::uint64_t p = cursor->position;
  for (std::uint64_t i = 0; i < warm_loads; ++i) {
    p = next(p);
  }
  // Storing p before each clock read makes the read wait for the load that produced p: an SM
  // issues a thread's instructions in order, and a store not before its data has arrived. So
  // the clocks enclose exactly the timed loads, the last one's latency included.
  cursor->position = p;
  const std::int64_t cycles_start = sm_cycles();
  const std::uint64_t ns_start = global_timer_ns();
#pragma unroll 16
  for (std::uint64_t i = 0; i < timed_loads; ++i) {
    p = next(p);
  }
  cursor->position = p;
  const std::uint64_t ns_end = global_timer_ns();
  const std::int64_t cycles_end = sm_cycles();
  const std::uint64_t launch = cursor->launches;
  timings[launch % capacity] = {cycles_end - cycles_start, ns_end - ns_start};
  cursor->launches = launch + 1;
}
