// launch/graph_nodes/<step>/nodes:<n>: what a CUDA graph of n kernel nodes costs, as a linear
// chain of the launch family's empty counting kernel (launch_probe_empty, captured from
// cuLaunchKernel). Each step reports us_per_node and us_per_graph (n x us_per_node): a line
// through us_per_graph over n gives a graph's fixed cost (its intercept) and its cost per node
// (its slope).
//
//   instantiate            host clock: cuGraphInstantiateWithFlags of the captured graph
//   first_launch           host clock: cuGraphLaunch of a fresh instance, which uploads it
//   uploaded_first_launch  host clock: the first cuGraphLaunch of a fresh instance that
//                          cuGraphUpload already put on the device (untimed), beside first_launch
//                          what the upload costs at launch
//   replay_submit          host clock: cuGraphLaunch of an instance launched before
//   replay_gpu             GPU time (events around gated replays): the GPU running the nodes
//
// Host-clock launches are timed as launch/<path>/submit is (the stream drained outside the
// timed region). A first launch needs an instance never launched, so each batch's instances
// are made before it, outside the timed region (the harness's prepare step).
//
// Verified: the GPU counts every node that runs; the count must equal nodes x graph launches,
// or the benchmark fails. The instantiate step launches the last batch's instances once after
// timing, so each instance it made in that batch is shown whole.
#include "graph_nodes.hpp"

#include "cuda_error.hpp"
#include "graph.hpp"
#include "harness.hpp"
#include "launch_counts.hpp"
#include "launch_targets.hpp"
#include "launcher.hpp"
#include "registry.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace gpubench::bench {
namespace {

const std::vector<std::int64_t> node_counts = {1, 16, 256, 2048};

// Graphs per timed batch: enough that a batch of small graphs lasts well above the host clock's
// resolution, few enough that a batch of large graphs is quick to prepare (an instance of 2048
// nodes takes milliseconds to make) and stays far below a stream's queue depth.
std::size_t graphs_per_batch(std::size_t nodes) {
  return std::clamp<std::size_t>(4096 / nodes, 2, 32);
}

// Instances of one graph made outside the timed region and taken, one per call, inside it.
class Instances {
public:
  Instances(const Graph& graph, CUstream stream) : graph_(graph), stream_(stream) {}

  // Drops the instances made before (after their launches finished) and makes `count` new ones;
  // with `upload`, puts each on the device and waits for that.
  void remake(std::size_t count, bool upload) {
    GPUBENCH_CU(cuStreamSynchronize, stream_);
    clear();
    for (std::size_t i = 0; i < count; ++i) {
      add();
      if (upload) {
        made_.back().upload(stream_);
      }
    }
    GPUBENCH_CU(cuStreamSynchronize, stream_);
  }

  // Drops every instance; the capacity stays, so add() does not allocate in a timed region.
  void clear() {
    made_.clear();
    next_ = 0;
  }

  void reserve(std::size_t count) { made_.reserve(count); }

  // Instantiates one more.
  void add() {
    if (made_.size() == made_.capacity()) {
      throw std::logic_error("graph_nodes made more instances than it reserved");
    }
    made_.emplace_back(graph_.get());
  }

  // Launches the next instance not launched yet.
  void launch_next() {
    if (next_ == made_.size()) {
      throw std::logic_error("graph_nodes launched more fresh instances than it made");
    }
    made_[next_++].launch(stream_);
    ++graph_launches_;
  }

  // Launches every instance not launched yet.
  void launch_rest() {
    while (next_ < made_.size()) {
      launch_next();
    }
  }

  [[nodiscard]] std::uint64_t graph_launches() const noexcept { return graph_launches_; }

private:
  const Graph& graph_;
  CUstream stream_;
  std::vector<GraphExec> made_;
  std::size_t next_ = 0;
  std::uint64_t graph_launches_ = 0;
};

void check_nodes_ran(std::uint64_t nodes_launched) {
  const LaunchCounts counts = read_launch_counts();
  if (counts.launched != nodes_launched || counts.intact != nodes_launched) {
    throw VerificationFailure(
        fmt::format("{} graph nodes launched, {} kernels ran", nodes_launched, counts.launched));
  }
}

void report(Harness& h, std::size_t nodes, double seconds_per_node) {
  benchmark::State& state = h.state();
  state.counters["us_per_node"] = seconds_per_node * 1e6;
  state.counters["us_per_graph"] = seconds_per_node * 1e6 * static_cast<double>(nodes);
  state.counters["nodes"] = static_cast<double>(nodes);
}

// A linear chain of `nodes` empty counting kernels, captured from the driver's launch path.
Graph chain_of(std::size_t nodes, Launcher& launcher, CUstream stream) {
  return capture(stream, [&] {
    for (std::size_t i = 0; i < nodes; ++i) {
      launcher.driver();
    }
  });
}

void measure_instantiate(Harness& h, std::size_t nodes) {
  const CUstream stream = h.stream();
  Launcher launcher(launch_target(0), stream);
  const Graph graph = chain_of(nodes, launcher, stream);
  const std::size_t batch = graphs_per_batch(nodes);
  Instances instances(graph, stream);
  instances.reserve(batch);
  const LoopTimes times = h.exec(
      HostClock{.ops = batch, .wait = HostClock::Wait::none}, [&] { instances.add(); },
      [&] { instances.clear(); });
  reset_launch_counts();
  instances.launch_rest();
  check_nodes_ran(instances.graph_launches() * nodes);
  report(h, nodes, times.seconds_per_op / static_cast<double>(nodes));
}

void measure_first_launch(Harness& h, std::size_t nodes, bool uploaded) {
  const CUstream stream = h.stream();
  Launcher launcher(launch_target(0), stream);
  const Graph graph = chain_of(nodes, launcher, stream);
  const std::size_t batch = graphs_per_batch(nodes);
  Instances instances(graph, stream);
  instances.reserve(batch);
  reset_launch_counts();
  // The harness's first call, made on its own before any batch, takes one of these.
  instances.remake(batch, uploaded);
  const LoopTimes times = h.exec(
      HostClock{.ops = batch, .wait = HostClock::Wait::outside}, [&] { instances.launch_next(); },
      [&] { instances.remake(batch, uploaded); });
  check_nodes_ran(instances.graph_launches() * nodes);
  report(h, nodes, times.seconds_per_op / static_cast<double>(nodes));
}

// Replays: the harness captures `nodes` launches into one graph and replays it (graph_ops), so
// its operations are nodes and its figure is per node.
void measure_replay(Harness& h, std::size_t nodes, bool gpu_time) {
  const CUstream stream = h.stream();
  Launcher launcher(launch_target(0), stream);
  const std::size_t ops = nodes * graphs_per_batch(nodes);
  reset_launch_counts();
  const auto launch = [&] { launcher.driver(); };
  const LoopTimes times =
      gpu_time ? h.exec(GpuBatches{.ops = ops, .graph_ops = nodes}, launch)
               : h.exec(HostClock{.ops = ops, .wait = HostClock::Wait::outside, .graph_ops = nodes},
                        launch);
  check_nodes_ran(h.ops_performed());
  report(h, nodes, times.seconds_per_op);
}

struct Step {
  const char* name;
  void (*measure)(Harness& h, std::size_t nodes);
};

const Step steps[] = {
    {"instantiate", measure_instantiate},
    {"first_launch", [](Harness& h, std::size_t n) { measure_first_launch(h, n, false); }},
    {"uploaded_first_launch", [](Harness& h, std::size_t n) { measure_first_launch(h, n, true); }},
    {"replay_submit", [](Harness& h, std::size_t n) { measure_replay(h, n, false); }},
    {"replay_gpu", [](Harness& h, std::size_t n) { measure_replay(h, n, true); }},
};

} // namespace

void register_graph_nodes(Registry& registry) {
  for (const Step& step : steps) {
    registry.add(fmt::format("launch/graph_nodes/{}", step.name),
                 [&step](Harness& h, std::int64_t nodes) {
                   step.measure(h, static_cast<std::size_t>(nodes));
                 },
                 {node_counts, "nodes"});
  }
}

} // namespace gpubench::bench
