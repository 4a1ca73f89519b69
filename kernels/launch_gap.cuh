#pragma once

#include <cuda_runtime_api.h> // __global__ where a host compiler reads this

#include <cstdint>

// launch/gpu_gap/: kernels that stamp the GPU's global timer (%globaltimer, nanoseconds) as
// they start and end, so the GPU's own clock says how long it sat between one kernel and the
// next. The stamps and their count live in launch_gap.cu's module at namespace scope
// (gpubench_gap_stamps, gpubench_gap_count); the host reaches them with cuModuleGetGlobal.

// Stamps a launch may write; launches past it are counted, not stamped.
inline constexpr unsigned int gap_stamp_capacity = 1024;

struct GapStamp {
  std::uint64_t start_ns;
  std::uint64_t end_ns;
};

// One thread: reads the timer, takes the next stamp slot, reads the timer again and writes both.
__global__ void launch_gap_stamp();

// One thread: the smallest step the global timer takes, over `changes` changes, into *step_ns.
__global__ void global_timer_step(std::uint64_t* step_ns, unsigned int changes);
