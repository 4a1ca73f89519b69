#pragma once

#include <cuda_runtime_api.h> // __global__ where a host compiler reads this

#include <cstdint>

// launch/shape/: one kernel launched in every shape the launch family measures (grid size,
// block size, dynamic shared memory, the shared-memory carveout), so two shapes differ by the
// launch's configuration alone.
//
// Each block checks that it was launched as the host says (the parameter block's marker, the
// grid's blocks, the block's threads, the dynamic shared memory it was given: %dynamic_smem_size,
// and every word of it written by one thread and read back by another), and thread 0 stamps the
// GPU's global timer (%globaltimer) as the block starts and ends. The stamps, per launch over its
// blocks, and the launch counter live in launch_shape.cu's module at namespace scope; the host
// reaches them with cuModuleGetGlobal.

// Launches a batch stamps; a launch's slot is its `launch` argument.
inline constexpr unsigned int shape_launch_capacity = 256;
// The parameter block's first word: it arrived intact.
inline constexpr unsigned int shape_marker = 0x73686170U;
// The most threads a block of the kernel has (its __launch_bounds__).
inline constexpr unsigned int shape_max_block_threads = 1024;

// 32 bytes, the launch's parameter block (launch/shape/.../params of 32 bytes).
struct ShapeArgs {
  unsigned int marker;        // shape_marker
  unsigned int launch;        // the slot this launch stamps, < shape_launch_capacity
  unsigned int grid_blocks;   // gridDim.x the host launched
  unsigned int block_threads; // blockDim.x the host launched
  unsigned int shared_bytes;  // dynamic shared memory the host gave each block
  unsigned int unused[3];
};
static_assert(sizeof(ShapeArgs) == 32);

// One launch, over its blocks. Launches on one slot accumulate in `blocks` and `intact`, so the
// sum over the slots is every block of every launch since the last reset; the host sets
// first_start_ns to all ones and the rest to zero.
struct ShapeStamp {
  std::uint64_t first_start_ns; // the earliest block's first instruction
  std::uint64_t last_end_ns;    // the latest block's last stamp
  unsigned long long blocks;    // blocks that ran
  unsigned long long intact;    // of which were launched as the host says
};

__global__ void launch_shape_stamp(ShapeArgs args);
