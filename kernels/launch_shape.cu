#include "global_timer.cuh"
#include "launch_shape.cuh"

// At namespace scope with plain names, so the host finds them with cuModuleGetGlobal.
__device__ unsigned long long gpubench_shape_launches = 0;
__device__ ShapeStamp gpubench_shape_stamps[shape_launch_capacity];

namespace {

// The block's dynamic shared memory as the GPU allocated it (PTX's %dynamic_smem_size).
__device__ __forceinline__ unsigned int dynamic_shared_bytes() {
  unsigned int bytes;
  asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
  return bytes;
}

// A word's value, different for every word and block, so a word read back is the one written.
__device__ __forceinline__ unsigned int shared_pattern(unsigned int word) {
  return (word * 2654435761U) ^ (blockIdx.x + 1U);
}

// Every word of the block's dynamic shared memory is written by one thread and, after the
// barrier, read by another (the threads take the words in reverse order): the allocation is as
// large as the launch asked and holds what was stored. A word past the allocation faults.
__device__ bool shared_memory_round_trip(unsigned int bytes) {
  extern __shared__ unsigned int shared_words[];
  const unsigned int words = bytes / sizeof(unsigned int);
  for (unsigned int w = threadIdx.x; w < words; w += blockDim.x) {
    shared_words[w] = shared_pattern(w);
  }
  __syncthreads();
  bool held = true;
  for (unsigned int w = threadIdx.x; w < words; w += blockDim.x) {
    const unsigned int other = words - 1U - w;
    held = held && shared_words[other] == shared_pattern(other);
  }
  return __syncthreads_and(held) != 0;
}

} // namespace

__global__ void __launch_bounds__(shape_max_block_threads) launch_shape_stamp(ShapeArgs args) {
  const std::uint64_t start = global_timer_ns();
  const bool shared_held = shared_memory_round_trip(args.shared_bytes);
  if (threadIdx.x != 0) {
    return;
  }
  const bool in_capacity = args.launch < shape_launch_capacity;
  const bool intact = args.marker == shape_marker && in_capacity && gridDim.x == args.grid_blocks &&
                      blockDim.x == args.block_threads &&
                      dynamic_shared_bytes() == args.shared_bytes && shared_held;
  if (blockIdx.x == 0) {
    atomicAdd(&gpubench_shape_launches, 1ULL);
  }
  // A launch past the capacity is counted, not stamped: its blocks are missing from the sums.
  if (in_capacity) {
    ShapeStamp& stamp = gpubench_shape_stamps[args.launch];
    atomicMin(reinterpret_cast<unsigned long long*>(&stamp.first_start_ns), start);
    atomicAdd(&stamp.blocks, 1ULL);
    if (intact) {
      atomicAdd(&stamp.intact, 1ULL);
    }
    // Read after the other stamps are on their way, so the end is the block's last act but this
    // one store, as launch_mechanism_stamp's is.
    const std::uint64_t end = global_timer_ns();
    atomicMax(reinterpret_cast<unsigned long long*>(&stamp.last_end_ns), end);
  }
}
