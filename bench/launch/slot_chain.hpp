#pragma once

#include "graph.hpp"
#include "memory.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gpubench::bench {

// Values never given before, so a slot that holds one was written by the node it was given to.
class FreshValues {
public:
  unsigned long long operator()() noexcept { return next_++; }

private:
  unsigned long long next_ = 1;
};

// A CUDA graph of n kernel nodes in a chain, node i writing the value it was given to slot i of
// `slots` (graph_slot_write): replaying the graph shows which parameters each node ran with.
// The chain keeps the value each of its graph's nodes holds.
class SlotChain {
public:
  // Every node given a fresh value. `slots` holds at least `nodes` slots and outlives the chain.
  SlotChain(std::size_t nodes, const DeviceBuffer& slots, FreshValues& fresh);

  [[nodiscard]] CUgraph graph() const noexcept { return graph_.get(); }
  [[nodiscard]] std::size_t nodes() const noexcept { return nodes_.size(); }
  [[nodiscard]] std::span<const unsigned long long> values() const noexcept { return values_; }

  // Gives every node of the graph a fresh value (cudaGraphKernelNodeSetParams).
  void refresh(FreshValues& fresh);
  // Gives `node` of `exec`, an instance of this graph, `value` in place
  // (cudaGraphExecKernelNodeSetParams); the graph itself keeps its own.
  void give_in(CUgraphExec exec, std::size_t node, unsigned long long value) const;

private:
  template <typename Use>
  void with_params(std::size_t node, unsigned long long value, Use&& use) const;

  Graph graph_;
  unsigned long long* slots_;
  std::vector<cudaGraphNode_t> nodes_;
  std::vector<unsigned long long> values_;
};

// Zeroes the slots, replays `exec` on `stream` and waits; returns the first node whose slot does
// not hold `expected`'s value for it, as a sentence, or nullopt.
[[nodiscard]] std::optional<std::string>
replayed_slots_mismatch(const GraphExec& exec, const DeviceBuffer& slots,
                        std::span<const unsigned long long> expected, CUstream stream);

} // namespace gpubench::bench
