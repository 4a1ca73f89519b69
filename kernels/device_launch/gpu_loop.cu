#include "global_timer.cuh"
#include "gpu_loop.cuh"

namespace {

// Counts a failed device-side launch; the first one's error and where it happened are kept.
__device__ void note_launch(GpuLoopCounters* counters, cudaError_t result) {
  if (result == cudaSuccess) {
    return;
  }
  if (atomicAdd(&counters->launch_failures, 1ULL) == 0) {
    counters->first_failure = static_cast<unsigned int>(result);
    counters->failed_at_remaining = atomicAdd(&counters->remaining, 0U);
  }
}

// The iteration itself; returns the iterations left after it. Atomics, so an iteration that
// overlapped another would still be counted once and take its own index (the stamps then show
// the overlap).
__device__ unsigned int step(const GpuLoopArgs& args) {
  const std::uint64_t start = global_timer_ns();
  GpuLoopCounters* counters = args.counters;
  atomicAdd(&counters->ran, 1ULL);
  if (args.token == gpu_loop_token(args.iterations)) {
    atomicAdd(&counters->intact, 1ULL);
  }
  const unsigned int left = atomicSub(&counters->remaining, 1U);
  if (left == 0 || left > args.iterations) {
    // No iteration was left to run: undo, count it, stamp nothing.
    atomicAdd(&counters->remaining, 1U);
    atomicAdd(&counters->strays, 1U);
    return 0;
  }
  const unsigned int index = args.iterations - left;
  args.stamps[index] = GpuLoopStamp{start, global_timer_ns()};
  return left - 1;
}

} // namespace

__global__ void gpu_loop_step(GpuLoopArgs args) { static_cast<void>(step(args)); }

__global__ void gpu_loop_while_step(GpuLoopArgs args, cudaGraphConditionalHandle condition) {
  cudaGraphSetConditional(condition, step(args) > 0 ? 1U : 0U);
}

__global__ void gpu_loop_tail_step(GpuLoopArgs args) {
  if (step(args) > 0) {
    const cudaGraphExec_t self = cudaGetCurrentGraphExec();
    note_launch(args.counters, self == nullptr ? cudaErrorInvalidResourceHandle
                                               : cudaGraphLaunch(self, cudaStreamGraphTailLaunch));
  }
}

__global__ void gpu_loop_start(cudaGraphExec_t loop, GpuLoopCounters* counters) {
  note_launch(counters, cudaGraphLaunch(loop, cudaStreamGraphTailLaunch));
}

__global__ void gpu_loop_schedule(cudaGraphExec_t work, GpuLoopCounters* counters) {
  // The last iteration's work graph finished before this graph started (a tail launch waits for
  // the launching graph's fire-and-forget work), so `remaining` holds what it left.
  if (atomicAdd(&counters->remaining, 0U) == 0) {
    return;
  }
  const cudaError_t fired = cudaGraphLaunch(work, cudaStreamGraphFireAndForget);
  note_launch(counters, fired);
  if (fired != cudaSuccess) {
    return; // no iteration ran, so a relaunch would find the same count and never end
  }
  const cudaGraphExec_t self = cudaGetCurrentGraphExec();
  note_launch(counters, self == nullptr ? cudaErrorInvalidResourceHandle
                                        : cudaGraphLaunch(self, cudaStreamGraphTailLaunch));
}
