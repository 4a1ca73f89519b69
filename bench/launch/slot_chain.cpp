#include "slot_chain.hpp"

#include "cuda_error.hpp"
#include "driver_api.hpp"
#include "graph_slot.cuh"

#include <fmt/format.h>

#include <optional>
#include <string>

namespace gpubench::bench {

template <typename Use>
void SlotChain::with_params(std::size_t node, unsigned long long value, Use&& use) const {
  unsigned long long* slots = slots_;
  auto slot = static_cast<unsigned int>(node);
  void* args[] = {&slots, &slot, &value};
  cudaKernelNodeParams params{};
  params.func = reinterpret_cast<void*>(graph_slot_write);
  params.gridDim = dim3(1);
  params.blockDim = dim3(1);
  params.kernelParams = args;
  use(params);
}

SlotChain::SlotChain(std::size_t nodes, const DeviceBuffer& slots, FreshValues& fresh)
    : graph_(empty_graph()), slots_(slots.as<unsigned long long>()) {
  nodes_.reserve(nodes);
  values_.reserve(nodes);
  for (std::size_t i = 0; i < nodes; ++i) {
    const unsigned long long value = fresh();
    cudaGraphNode_t node = nullptr;
    const cudaGraphNode_t* after = nodes_.empty() ? nullptr : &nodes_.back();
    with_params(i, value, [&](const cudaKernelNodeParams& params) {
      GPUBENCH_CUDART(cudaGraphAddKernelNode(&node, graph_.get(), after, after ? 1 : 0, &params));
    });
    nodes_.push_back(node);
    values_.push_back(value);
  }
}

void SlotChain::refresh(FreshValues& fresh) {
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const unsigned long long value = fresh();
    with_params(i, value, [&](const cudaKernelNodeParams& params) {
      GPUBENCH_CUDART(cudaGraphKernelNodeSetParams(nodes_[i], &params));
    });
    values_[i] = value;
  }
}

void SlotChain::give_in(CUgraphExec exec, std::size_t node, unsigned long long value) const {
  with_params(node, value, [&](const cudaKernelNodeParams& params) {
    GPUBENCH_CUDART(cudaGraphExecKernelNodeSetParams(exec, nodes_[node], &params));
  });
}

std::optional<std::string> replayed_slots_mismatch(const GraphExec& exec, const DeviceBuffer& slots,
                                                   std::span<const unsigned long long> expected,
                                                   CUstream stream) {
  const std::size_t bytes = expected.size() * sizeof(unsigned long long);
  GPUBENCH_CU(cuMemsetD8Async, slots.ptr(), 0, bytes, stream);
  exec.launch(stream);
  GPUBENCH_CU(cuStreamSynchronize, stream);
  std::vector<unsigned long long> written(expected.size());
  GPUBENCH_CU(cuMemcpyDtoH, written.data(), slots.ptr(), bytes);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (written[i] != expected[i]) {
      return fmt::format("node {} of {} ran with value {}; it was given {}", i, expected.size(),
                         written[i], expected[i]);
    }
  }
  return std::nullopt;
}

} // namespace gpubench::bench
