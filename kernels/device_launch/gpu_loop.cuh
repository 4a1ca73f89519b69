#pragma once

#include <cuda_runtime_api.h> // __global__ and the graph types where a host compiler reads this

#include <cstdint>

// launch/gpu_loop/: one loop of n iterations of the same one-thread kernel, driven by the host
// (n launches) or by the GPU itself (a WHILE node, a tail relaunch, a fire-and-forget launch per
// iteration). Every iteration takes its index from `remaining`, which the host sets to n before
// each loop, counts itself and stamps the GPU's global timer as it starts and ends, so after a
// loop the host sees how many iterations ran and in which order. These kernels are compiled with
// relocatable device code and linked with cudadevrt (kernels/device_launch/): device-side
// cudaGraphLaunch needs both.

// What every iteration leaves, in one device allocation the host reads and resets.
struct GpuLoopCounters {
  unsigned long long ran;             // iterations run, over every loop since the last reset
  unsigned long long intact;          // of those, the ones that saw their parameters as given
  unsigned long long launch_failures; // device-side cudaGraphLaunch calls that failed
  unsigned int first_failure;         // the first failed call's cudaError_t; 0 while none
  unsigned int failed_at_remaining;   // `remaining` when that call failed
  unsigned int remaining;             // iterations the current loop has left to run
  unsigned int strays;                // iterations that ran with none left (not stamped)
};

// One iteration's global timer (%globaltimer, ns) as it starts and as it ends.
struct GpuLoopStamp {
  std::uint64_t start_ns;
  std::uint64_t end_ns;
};

// What the host gives every iteration's kernel; `token` is gpu_loop_token(iterations), so a
// kernel that sees both as given saw its parameter block intact.
struct GpuLoopArgs {
  GpuLoopCounters* counters;
  GpuLoopStamp* stamps; // `iterations` of them, in iteration order
  unsigned int iterations;
  unsigned long long token;
};

// Not a value a zeroed or shifted parameter block holds by accident.
__host__ __device__ constexpr unsigned long long gpu_loop_token(unsigned int iterations) {
  return 0x9e3779b97f4a7c15ULL ^ iterations;
}

// One iteration: host_stream and host_graph launch it, and it is the work graph's node in the
// fire-and-forget loop.
__global__ void gpu_loop_step(GpuLoopArgs args);

// One iteration as a WHILE node's body: the iteration, then the node's condition set to whether
// iterations remain (a WHILE body must set it, or the node loops on the value it had).
__global__ void gpu_loop_while_step(GpuLoopArgs args, cudaGraphConditionalHandle condition);

// One iteration as the node of a device graph that tail-launches itself while iterations remain
// (cudaGetCurrentGraphExec, cudaStreamGraphTailLaunch).
__global__ void gpu_loop_tail_step(GpuLoopArgs args);

// The node of a host graph that starts a device loop: tail-launches `loop` (a device graph),
// which runs once this graph is done, within the same launch on the host's stream.
__global__ void gpu_loop_start(cudaGraphExec_t loop, GpuLoopCounters* counters);

// The node of a device graph that schedules one iteration while iterations remain: launches
// `work` (a device graph of one gpu_loop_step) fire-and-forget, then tail-launches its own graph,
// which runs once `work` is done.
__global__ void gpu_loop_schedule(cudaGraphExec_t work, GpuLoopCounters* counters);
