#include "gpu_loop_graphs.hpp"

#include "cuda_error.hpp"
#include "driver_api.hpp"

#include <algorithm>
#include <vector>

namespace gpubench::bench {
namespace {

void add_kernel_node(cudaGraph_t graph, const void* kernel, void** args) {
  cudaKernelNodeParams params{};
  params.func = const_cast<void*>(kernel);
  params.gridDim = dim3(1);
  params.blockDim = dim3(1);
  params.kernelParams = args;
  cudaGraphNode_t node = nullptr;
  GPUBENCH_CUDART(cudaGraphAddKernelNode(&node, graph, nullptr, 0, &params));
}

// A condition of `graph` that every launch of it starts at `value` (cudaGraphCondAssignDefault).
cudaGraphConditionalHandle condition_of(cudaGraph_t graph, unsigned int value) {
  cudaGraphConditionalHandle condition = 0;
  GPUBENCH_CUDART(
      cudaGraphConditionalHandleCreate(&condition, graph, value, cudaGraphCondAssignDefault));
  return condition;
}

// A conditional node of `type` on `condition`, after `after` (first where null), whose body is
// one gpu_loop_while_step that sets `sets` to whether iterations remain. Returns the node.
cudaGraphNode_t add_step_node(cudaGraph_t graph, cudaGraphNode_t after,
                              cudaGraphConditionalNodeType type,
                              cudaGraphConditionalHandle condition, const GpuLoopArgs& args,
                              cudaGraphConditionalHandle sets) {
  cudaGraphNodeParams params{};
  params.type = cudaGraphNodeTypeConditional;
  params.conditional.handle = condition;
  params.conditional.type = type;
  params.conditional.size = 1;
  cudaGraphNode_t node = nullptr;
  GPUBENCH_CUDART(cudaGraphAddNode(&node, graph, after == nullptr ? nullptr : &after, nullptr,
                                   after == nullptr ? 0 : 1, &params));
  // The body graph belongs to the node, which fills phGraph_out when it is added.
  GpuLoopArgs step_args = args;
  void* step_params[] = {&step_args, &sets};
  add_kernel_node(params.conditional.phGraph_out[0],
                  reinterpret_cast<const void*>(gpu_loop_while_step), step_params);
  return node;
}

} // namespace

Graph kernel_graph(const void* kernel, void** args) {
  Graph graph = empty_graph();
  add_kernel_node(graph.get(), kernel, args);
  return graph;
}

Graph while_graph(const GpuLoopArgs& args) {
  Graph graph = empty_graph();
  const cudaGraphConditionalHandle condition = condition_of(graph.get(), 1);
  add_step_node(graph.get(), nullptr, cudaGraphCondTypeWhile, condition, args, condition);
  return graph;
}

Graph if_chain_graph(const GpuLoopArgs& args) {
  Graph graph = empty_graph();
  std::vector<cudaGraphConditionalHandle> conditions;
  for (unsigned int i = 0; i < args.iterations; ++i) {
    conditions.push_back(condition_of(graph.get(), i == 0 ? 1 : 0));
  }
  cudaGraphNode_t previous = nullptr;
  for (unsigned int i = 0; i < args.iterations; ++i) {
    previous = add_step_node(graph.get(), previous, cudaGraphCondTypeIf, conditions[i], args,
                             conditions[std::min(i + 1, args.iterations - 1)]);
  }
  return graph;
}

GraphExec device_graph(const Graph& graph, CUstream stream) {
  GraphExec exec(graph.get(), CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH);
  exec.upload(stream);
  GPUBENCH_CU(cuStreamSynchronize, stream);
  return exec;
}

} // namespace gpubench::bench
