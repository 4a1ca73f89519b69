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

} // namespace

Graph kernel_graph(const void* kernel, void** args) {
  Graph graph = empty_graph();
  add_kernel_node(graph.get(), kernel, args);
  return graph;
}

Graph while_graph(const GpuLoopArgs& args) {
  Graph graph = empty_graph();
  cudaGraphConditionalHandle condition = 0;
  GPUBENCH_CUDART(
      cudaGraphConditionalHandleCreate(&condition, graph.get(), 1, cudaGraphCondAssignDefault));
  cudaGraphNodeParams params{};
  params.type = cudaGraphNodeTypeConditional;
  params.conditional.handle = condition;
  params.conditional.type = cudaGraphCondTypeWhile;
  params.conditional.size = 1;
  cudaGraphNode_t node = nullptr;
  GPUBENCH_CUDART(cudaGraphAddNode(&node, graph.get(), nullptr, nullptr, 0, &params));
  // The body graph belongs to the node, which fills phGraph_out when it is added.
  GpuLoopArgs step_args = args;
  void* step_params[] = {&step_args, &condition};
  add_kernel_node(params.conditional.phGraph_out[0],
                  reinterpret_cast<const void*>(gpu_loop_while_step), step_params);
  return graph;
}

Graph if_chain_graph(const GpuLoopArgs& args) {
  Graph graph = empty_graph();
  std::vector<cudaGraphConditionalHandle> conditions(args.iterations);
  for (unsigned int i = 0; i < args.iterations; ++i) {
    GPUBENCH_CUDART(cudaGraphConditionalHandleCreate(&conditions[i], graph.get(), i == 0 ? 1 : 0,
                                                     cudaGraphCondAssignDefault));
  }
  cudaGraphNode_t previous = nullptr;
  for (unsigned int i = 0; i < args.iterations; ++i) {
    cudaGraphNodeParams params{};
    params.type = cudaGraphNodeTypeConditional;
    params.conditional.handle = conditions[i];
    params.conditional.type = cudaGraphCondTypeIf;
    params.conditional.size = 1;
    cudaGraphNode_t node = nullptr;
    GPUBENCH_CUDART(cudaGraphAddNode(&node, graph.get(), previous == nullptr ? nullptr : &previous,
                                     nullptr, previous == nullptr ? 0 : 1, &params));
    GpuLoopArgs step_args = args;
    cudaGraphConditionalHandle next = conditions[std::min(i + 1, args.iterations - 1)];
    void* step_params[] = {&step_args, &next};
    add_kernel_node(params.conditional.phGraph_out[0],
                    reinterpret_cast<const void*>(gpu_loop_while_step), step_params);
    previous = node;
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
