// The drivers of launch/gpu_loop: the same loop of one-thread kernels, run by the host through a
// stream or a graph launch per iteration, or by the GPU through a WHILE node, a chain of IF nodes,
// a tail relaunch or a fire-and-forget launch per iteration. docs/methodology.md (launch,
// GPU-driven loops) says what each iteration costs in launches.
#include "gpu_loop_drivers.hpp"

#include "driver_api.hpp"
#include "gpu_loop.cuh"
#include "gpu_loop_chevron.hpp"
#include "gpu_loop_graphs.hpp"
#include "graph.hpp"

namespace gpubench::bench {
namespace {

// Waits for the stream when a loop is dropped, ahead of its graphs: a device graph must not be
// destroyed while the GPU may still launch it. Errors are the run's to report, not a destructor's.
class DrainOnDrop {
public:
  explicit DrainOnDrop(CUstream stream) noexcept : stream_(stream) {}
  DrainOnDrop(const DrainOnDrop&) = delete;
  DrainOnDrop& operator=(const DrainOnDrop&) = delete;
  ~DrainOnDrop() { static_cast<void>(driver_api().cuStreamSynchronize(stream_)); }

private:
  CUstream stream_;
};

// n launches of the kernel with <<<>>>.
class HostStreamLoop final : public GpuLoop {
public:
  HostStreamLoop(const GpuLoopState& state, CUstream stream)
      : state_(state), stream_(stream), args_(state.args()) {}
  void run() override {
    state_.arm(stream_);
    for (unsigned int i = 0; i < state_.iterations(); ++i) {
      chevron_gpu_loop_step(stream_, args_);
    }
  }

private:
  const GpuLoopState& state_;
  CUstream stream_;
  GpuLoopArgs args_;
};

// n host launches of a graph of one kernel node.
class HostGraphLoop final : public GpuLoop {
public:
  HostGraphLoop(const GpuLoopState& state, CUstream stream)
      : state_(state), stream_(stream), exec_(step_graph(state).get()) {
    exec_.upload(stream_);
  }
  void run() override {
    state_.arm(stream_);
    for (unsigned int i = 0; i < state_.iterations(); ++i) {
      exec_.launch(stream_);
    }
  }

private:
  static Graph step_graph(const GpuLoopState& state) {
    GpuLoopArgs args = state.args();
    void* params[] = {&args};
    return kernel_graph(reinterpret_cast<const void*>(gpu_loop_step), params);
  }

  const GpuLoopState& state_;
  CUstream stream_;
  GraphExec exec_;
};

// One host launch of a graph in which the GPU decides every iteration: `Make` builds it from the
// loop's arguments (gpu_loop_graphs.hpp).
template <Graph (*Make)(const GpuLoopArgs&)> class ConditionalLoop final : public GpuLoop {
public:
  ConditionalLoop(const GpuLoopState& state, CUstream stream)
      : state_(state), stream_(stream), exec_(Make(state.args()).get()) {
    exec_.upload(stream_);
  }
  void run() override {
    state_.arm(stream_);
    exec_.launch(stream_);
  }

private:
  const GpuLoopState& state_;
  CUstream stream_;
  GraphExec exec_;
};

// A WHILE node running the body until it sets the condition to 0.
using WhileNodeLoop = ConditionalLoop<while_graph>;
// n IF nodes in a chain, each body's kernel opening the next.
using IfChainLoop = ConditionalLoop<if_chain_graph>;

// A host graph whose one node tail-launches `loop`, a device graph: one host launch per loop,
// after which the GPU launches every iteration. The device graph is launched from the device
// alone, never from the host, which the programming guide leaves undefined while the device
// may launch it.
class DeviceStartedLoop : public GpuLoop {
public:
  DeviceStartedLoop(const GpuLoopState& state, CUstream stream, const Graph& loop)
      : state_(state), stream_(stream), loop_(device_graph(loop, stream)),
        start_(start_graph(loop_, state).get()), drain_(stream) {
    start_.upload(stream_);
  }
  void run() override {
    state_.arm(stream_);
    start_.launch(stream_);
  }

private:
  static Graph start_graph(const GraphExec& loop, const GpuLoopState& state) {
    auto exec = static_cast<cudaGraphExec_t>(loop.get());
    GpuLoopCounters* counters = state.counters();
    void* params[] = {&exec, &counters};
    return kernel_graph(reinterpret_cast<const void*>(gpu_loop_start), params);
  }

  const GpuLoopState& state_;
  CUstream stream_;
  GraphExec loop_;
  GraphExec start_;
  DrainOnDrop drain_; // last, so it waits before either graph is destroyed
};

// The device graph of one gpu_loop_tail_step, which relaunches its own graph while iterations
// remain: every iteration a tail launch.
class TailLaunchLoop final : public DeviceStartedLoop {
public:
  TailLaunchLoop(const GpuLoopState& state, CUstream stream)
      : DeviceStartedLoop(state, stream, tail_graph(state)) {}

private:
  static Graph tail_graph(const GpuLoopState& state) {
    GpuLoopArgs args = state.args();
    void* params[] = {&args};
    return kernel_graph(reinterpret_cast<const void*>(gpu_loop_tail_step), params);
  }
};

// The device graph of one gpu_loop_schedule, which launches the work graph (one gpu_loop_step)
// fire-and-forget and tail-launches itself, which waits for the work: every iteration a
// fire-and-forget launch and a tail launch, and two kernels. A graph cannot be launched from the
// device while a launch of it runs, so a loop of fire-and-forget launches alone, with nothing to
// wait for each, could not relaunch its work graph.
class FireAndForgetLoop final : public GpuLoop {
public:
  FireAndForgetLoop(const GpuLoopState& state, CUstream stream)
      : work_(device_graph(work_graph(state), stream)),
        loop_(state, stream, schedule_graph(work_, state)) {}
  void run() override { loop_.run(); }

private:
  static Graph work_graph(const GpuLoopState& state) {
    GpuLoopArgs args = state.args();
    void* params[] = {&args};
    return kernel_graph(reinterpret_cast<const void*>(gpu_loop_step), params);
  }
  static Graph schedule_graph(const GraphExec& work, const GpuLoopState& state) {
    auto exec = static_cast<cudaGraphExec_t>(work.get());
    GpuLoopCounters* counters = state.counters();
    void* params[] = {&exec, &counters};
    return kernel_graph(reinterpret_cast<const void*>(gpu_loop_schedule), params);
  }

  GraphExec work_;
  DeviceStartedLoop loop_; // after work_, so it drains before work_ is destroyed
};

template <typename Loop> std::unique_ptr<GpuLoop> make(const GpuLoopState& state, CUstream stream) {
  return std::make_unique<Loop>(state, stream);
}

} // namespace

const std::array<GpuLoopDriver, 6>& gpu_loop_drivers() {
  static const std::array<GpuLoopDriver, 6> drivers{{
      {"host_stream", true, make<HostStreamLoop>},
      {"host_graph", true, make<HostGraphLoop>},
      {"while_node", false, make<WhileNodeLoop>},
      {"if_chain", false, make<IfChainLoop>},
      {"tail_launch", false, make<TailLaunchLoop>},
      {"fire_and_forget", false, make<FireAndForgetLoop>},
  }};
  return drivers;
}

} // namespace gpubench::bench
