// launch/graph_update/<how>/nodes:<n>: what it costs to give an instantiated CUDA graph new
// kernel parameters, for a chain of n nodes (--graph-update-nodes, 1, 16, 256 and 1024 by
// default), each node writing the value it was given to its own slot (SlotChain). Host clock,
// nothing launched in the timed region:
//
//   exec_set_params  cudaGraphExecKernelNodeSetParams: one node of the instance given a new
//                    value in place; a batch gives every node one, at least 64 calls
//   exec_update      cudaGraphExecUpdate: the instance updated from a whole graph of the same
//                    shape whose nodes all hold new values (made before the batch, outside the
//                    timed region)
//   reinstantiate    cudaGraphInstantiate (cuGraphInstantiateWithFlags) of the graph whose
//                    nodes were given new values before the batch: what the updates save. The
//                    old instance is destroyed outside the timed region, as in
//                    launch/graph_nodes/instantiate
//
// The Time column and us_per_graph are what giving the whole graph new values costs (n calls of
// exec_set_params, one exec_update or one reinstantiate), us_per_node that per node.
//
// Verified: after the timed loop the updated instance (the last one made, for reinstantiate) is
// replayed once with every slot zeroed first, and each node's slot must hold the value it was
// last given, a value given to no node before; any other slot fails the benchmark. A driver that
// refuses the call at its first, untimed, use skips the benchmark with its words.
#include "graph_update.hpp"

#include "cuda_error.hpp"
#include "graph.hpp"
#include "harness.hpp"
#include "registry.hpp"
#include "slot_chain.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <deque>
#include <vector>

namespace gpubench::bench {
namespace {

// As launch/graph_nodes: a batch of small graphs lasts well above the host clock's resolution,
// one of large graphs is quick to prepare.
std::size_t graphs_per_batch(std::size_t nodes) {
  return std::clamp<std::size_t>(4096 / nodes, 2, 32);
}

// A batch of exec_set_params gives every node a value, and makes at least this many calls.
constexpr std::size_t least_set_params_per_batch = 64;

// Runs the step's call once, untimed; a driver that refuses it skips the benchmark.
template <typename Call> void first_use(const char* call, Call&& use) {
  try {
    use();
  } catch (const CudaError& error) {
    throw SkipBenchmark(fmt::format("this driver refuses {}: {}", call, error.what()));
  }
}

void report(Harness& h, std::size_t nodes, double seconds_per_node) {
  benchmark::State& state = h.state();
  state.counters["us_per_node"] = seconds_per_node * 1e6;
  state.counters["us_per_graph"] = seconds_per_node * 1e6 * static_cast<double>(nodes);
  state.counters["nodes"] = static_cast<double>(nodes);
}

void measure_exec_set_params(Harness& h, std::size_t nodes) {
  const DeviceBuffer slots(nodes * sizeof(unsigned long long));
  FreshValues fresh;
  const SlotChain chain(nodes, slots, fresh);
  const GraphExec exec(chain.graph());
  std::vector<unsigned long long> given(chain.values().begin(), chain.values().end());
  std::size_t next = 0;
  const auto give_next = [&] {
    const unsigned long long value = fresh();
    chain.give_in(exec.get(), next, value);
    given[next] = value;
    next = (next + 1) % nodes;
  };
  first_use("cudaGraphExecKernelNodeSetParams", give_next);

  // An op is one whole graph's new values: `nodes` calls.
  const std::size_t graphs = (least_set_params_per_batch + nodes - 1) / nodes;
  const LoopTimes times = h.exec(HostClock{.ops = graphs, .wait = HostClock::Wait::none}, [&] {
    for (std::size_t i = 0; i < nodes; ++i) {
      give_next();
    }
  });

  Harness::verify(replayed_slots_mismatch(exec, slots, given, h.stream()));
  report(h, nodes, times.seconds_per_op / static_cast<double>(nodes));
}

void measure_exec_update(Harness& h, std::size_t nodes) {
  const DeviceBuffer slots(nodes * sizeof(unsigned long long));
  FreshValues fresh;
  const std::size_t batch = graphs_per_batch(nodes);
  std::deque<SlotChain> sources;
  for (std::size_t i = 0; i < batch; ++i) {
    sources.emplace_back(nodes, slots, fresh);
  }
  const GraphExec exec(sources.front().graph());
  std::size_t next = 0;
  const SlotChain* last = &sources.front();
  const auto update_next = [&] {
    cudaGraphExecUpdateResultInfo result{};
    GPUBENCH_CUDART(cudaGraphExecUpdate(exec.get(), sources[next].graph(), &result));
    last = &sources[next];
    next = (next + 1) % batch;
  };
  next = 1;
  first_use("cudaGraphExecUpdate", update_next);

  const LoopTimes times =
      h.exec(HostClock{.ops = batch, .wait = HostClock::Wait::none}, update_next, [&] {
        for (SlotChain& source : sources) {
          source.refresh(fresh);
        }
      });

  Harness::verify(replayed_slots_mismatch(exec, slots, last->values(), h.stream()));
  report(h, nodes, times.seconds_per_op / static_cast<double>(nodes));
}

void measure_reinstantiate(Harness& h, std::size_t nodes) {
  const DeviceBuffer slots(nodes * sizeof(unsigned long long));
  FreshValues fresh;
  SlotChain chain(nodes, slots, fresh);
  const std::size_t batch = graphs_per_batch(nodes);
  std::vector<GraphExec> instances;
  // The harness's first call, made on its own before any batch, adds one more.
  instances.reserve(batch + 1);
  const auto instantiate = [&] { instances.emplace_back(chain.graph()); };
  first_use("cuGraphInstantiateWithFlags", instantiate);

  const LoopTimes times =
      h.exec(HostClock{.ops = batch, .wait = HostClock::Wait::none}, instantiate, [&] {
        instances.clear();
        chain.refresh(fresh);
      });

  Harness::verify(replayed_slots_mismatch(instances.back(), slots, chain.values(), h.stream()));
  report(h, nodes, times.seconds_per_op / static_cast<double>(nodes));
}

struct How {
  const char* name;
  void (*measure)(Harness& h, std::size_t nodes);
};

const How hows[] = {
    {"exec_set_params", measure_exec_set_params},
    {"exec_update", measure_exec_update},
    {"reinstantiate", measure_reinstantiate},
};

} // namespace

void register_graph_updates(Registry& registry, const std::vector<std::int64_t>& node_counts) {
  for (const How& how : hows) {
    registry.add(
        fmt::format("launch/graph_update/{}", how.name),
        [&how](Harness& h, std::int64_t nodes) { how.measure(h, static_cast<std::size_t>(nodes)); },
        {node_counts, "nodes"});
  }
}

} // namespace gpubench::bench
