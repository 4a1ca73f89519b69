#pragma once

#include "cuda_error.hpp"
#include "driver_api.hpp"
#include "unique_handle.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <utility>

namespace gpubench {

namespace detail {
struct GraphRelease {
  void operator()(CUgraph graph) const noexcept { driver_api().cuGraphDestroy(graph); }
};
struct GraphExecRelease {
  void operator()(CUgraphExec exec) const noexcept { driver_api().cuGraphExecDestroy(exec); }
};
} // namespace detail

// An instantiated CUDA graph, ready to replay with launch(). `flags`: cuGraphInstantiateWithFlags'
// (CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH for a graph the GPU launches too).
class GraphExec {
public:
  explicit GraphExec(CUgraph graph, unsigned long long flags = 0) {
    CUgraphExec exec = nullptr;
    GPUBENCH_CU(cuGraphInstantiateWithFlags, &exec, graph, flags);
    handle_ = decltype(handle_)(exec);
  }
  void launch(CUstream stream) const { GPUBENCH_CU(cuGraphLaunch, handle_.get(), stream); }
  // The instance, for calls that update it in place (cudaGraphExecUpdate).
  [[nodiscard]] CUgraphExec get() const noexcept { return handle_.get(); }
  // Puts the graph's work on the device ahead of its first launch on `stream`, which would
  // otherwise pay for it.
  void upload(CUstream stream) const { GPUBENCH_CU(cuGraphUpload, handle_.get(), stream); }

private:
  UniqueHandle<CUgraphExec, detail::GraphExecRelease> handle_;
};

// A CUDA graph, not yet instantiated: instantiate it as often as needed with GraphExec.
class Graph {
public:
  explicit Graph(CUgraph graph) noexcept : handle_(graph) {}
  [[nodiscard]] CUgraph get() const noexcept { return handle_.get(); }

private:
  UniqueHandle<CUgraph, detail::GraphRelease> handle_;
};

// An empty graph, to build node by node (cudaGraphAddKernelNode and the like).
inline Graph empty_graph() {
  cudaGraph_t raw = nullptr;
  GPUBENCH_CUDART(cudaGraphCreate(&raw, 0));
  return Graph(raw);
}

// Captures what enqueue() puts on `stream` into a graph.
template <typename Enqueue> Graph capture(CUstream stream, Enqueue&& enqueue) {
  GPUBENCH_CU(cuStreamBeginCapture, stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  CUgraph raw = nullptr;
  try {
    enqueue();
  } catch (...) {
    driver_api().cuStreamEndCapture(stream, &raw);
    const Graph discarded(raw);
    throw;
  }
  GPUBENCH_CU(cuStreamEndCapture, stream, &raw);
  return Graph(raw);
}

// Captures what enqueue() puts on `stream` into a graph and instantiates it once.
template <typename Enqueue> GraphExec capture_graph(CUstream stream, Enqueue&& enqueue) {
  const Graph graph = capture(stream, std::forward<Enqueue>(enqueue));
  return GraphExec(graph.get());
}

} // namespace gpubench
