#pragma once

#include "gpu_loop.cuh"
#include "graph.hpp"

#include <cuda.h>

namespace gpubench::bench {

// The graphs launch/gpu_loop's drivers are made of, each one node of a one-thread kernel.

// A graph of one node: `kernel` launched with `args` (its parameters, as cudaLaunchKernel takes
// them).
[[nodiscard]] Graph kernel_graph(const void* kernel, void** args);

// A graph of one WHILE node whose body is one gpu_loop_while_step: its condition starts at 1 at
// every launch (cudaGraphCondAssignDefault), so the body runs first, and the body sets it to
// whether iterations remain.
[[nodiscard]] Graph while_graph(const GpuLoopArgs& args);

// A graph of a chain of `args.iterations` IF nodes, each node's body one gpu_loop_while_step
// that sets the next node's condition to whether iterations remain: the first node's condition
// starts at 1 at every launch, the others' at 0 (cudaGraphCondAssignDefault), so each iteration
// runs because the one before it said so. The last body sets its own node's condition, which
// nothing reads again.
[[nodiscard]] Graph if_chain_graph(const GpuLoopArgs& args);

// `graph` instantiated for launch from the device too (CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH)
// and uploaded on `stream`, waited for: a device-side launch needs the graph on the device first.
[[nodiscard]] GraphExec device_graph(const Graph& graph, CUstream stream);

} // namespace gpubench::bench
