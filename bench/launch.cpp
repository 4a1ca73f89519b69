// launch/<path>/<measure>/params:<bytes>: what each way of starting a kernel costs. Every path
// launches the same machine code (the runtime kernel's CUfunction from cudaGetFuncBySymbol),
// so a difference between paths is the API alone. Times are host-clock (UseManualTime).
#include "benchmarks.hpp"
#include "driver_api.hpp"
#include "failures.hpp"
#include "graph.hpp"
#include "kernel_params.hpp"
#include "launch_probe.cuh"
#include "launch_targets.hpp"
#include "measure.hpp"
#include "runtime_kernels.hpp"
#include "session.hpp"
#include "timed_loop.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

namespace gpubench::bench {
namespace {

// One target made ready for every launch API: the payload (first and last bytes marked so the
// kernel can prove it arrived), the driver's handle and each API's argument form. A launch
// here is one grid of one thread: the cost measured is the launch, not the kernel.
class Launcher {
public:
  Launcher(const LaunchTarget& target, CUstream stream)
      : target_(target), stream_(stream), function_(driver_function(target.symbol)),
        payload_(std::max<std::size_t>(target.bytes, 1)) {
    payload_.front() = payload_first_byte;
    payload_.back() = payload_last_byte;
    if (target.bytes > 0) {
      packed_.push_bytes(std::as_bytes(std::span(payload_)), 1);
      args_[0] = payload_.data();
    }
    runtime_config_.gridDim = dim3(1);
    runtime_config_.blockDim = dim3(1);
    runtime_config_.stream = stream;
    driver_config_.gridDimX = driver_config_.gridDimY = driver_config_.gridDimZ = 1;
    driver_config_.blockDimX = driver_config_.blockDimY = driver_config_.blockDimZ = 1;
    driver_config_.hStream = stream;
  }

  // <<<>>> reports errors through cudaGetLastError, which the measurement checks per batch.
  void runtime() { target_.chevron(stream_, payload_.data()); }
  void runtime_launchkernel() {
    GPUBENCH_CUDART(cudaLaunchKernel(target_.symbol, dim3(1), dim3(1), args(), 0, stream_));
  }
  void runtime_launchkernelex() {
    GPUBENCH_CUDART(target_.launch_ex(runtime_config_, payload_.data()));
  }
  void driver() {
    GPUBENCH_CU(cuLaunchKernel, function_, 1, 1, 1, 1, 1, 1, 0, stream_, args(), nullptr);
  }
  void driver_extra() {
    GPUBENCH_CU(cuLaunchKernel, function_, 1, 1, 1, 1, 1, 1, 0, stream_, nullptr, extra());
  }
  void driver_launchkernelex() {
    GPUBENCH_CU(cuLaunchKernelEx, &driver_config_, function_, args(), nullptr);
  }

private:
  void** args() { return target_.bytes > 0 ? args_.data() : nullptr; }
  void** extra() { return target_.bytes > 0 ? packed_.extra() : nullptr; }

  const LaunchTarget& target_;
  CUstream stream_;
  CUfunction function_;
  std::vector<unsigned char> payload_;
  PackedKernelParams packed_;
  std::array<void*, 1> args_{};
  cudaLaunchConfig_t runtime_config_{};
  CUlaunchConfig driver_config_{};
};

struct Path {
  const char* name;
  void (Launcher::*launch)();
  bool graph = false; // K launches captured once into a graph, replayed; reported per kernel
};

const Path paths[] = {
    {"runtime", &Launcher::runtime},
    {"runtime_launchkernel", &Launcher::runtime_launchkernel},
    {"runtime_launchkernelex", &Launcher::runtime_launchkernelex},
    {"driver", &Launcher::driver},
    {"driver_extra", &Launcher::driver_extra},
    {"driver_launchkernelex", &Launcher::driver_launchkernelex},
    {"graph", &Launcher::driver, true},
};

enum class Measure { submit, throughput, roundtrip };

struct MeasureSpec {
  const char* name;
  Measure measure;
  // Kernels per timed batch. submit stays far below the stream's queue depth (~1000), so the
  // host never blocks on a full queue; the GPU drains the batch outside the timed region.
  std::size_t batch;
};

const MeasureSpec measures[] = {
    {"submit", Measure::submit, 64},
    {"throughput", Measure::throughput, 512},
    {"roundtrip", Measure::roundtrip, 16},
};

void sync(CUstream stream) { GPUBENCH_CU(cuStreamSynchronize, stream); }

void run_launch(benchmark::State& state, const Path& path, const MeasureSpec& spec,
                const LaunchTarget& target) {
  const CUstream stream = session().stream();
  Launcher launcher(target, stream);
  const auto launch = [&] { (launcher.*path.launch)(); };

  sync(stream);
  reset_launch_counts();
  std::uint64_t launches = 0;
  try {
    launch();
    GPUBENCH_CUDART(cudaGetLastError());
    sync(stream);
    ++launches;
  } catch (const CudaError& error) {
    skip(state, fmt::format("this driver refuses a {}-byte parameter block on this path: {}",
                            target.bytes, error.what()));
    return;
  }

  // A roundtrip is one kernel and its synchronisation, so its graph holds a single launch.
  const std::size_t kernels_per_graph = spec.measure == Measure::roundtrip ? 1 : spec.batch;
  std::optional<GraphExec> graph;
  if (path.graph) {
    graph.emplace(capture_graph(stream, [&] {
      for (std::size_t i = 0; i < kernels_per_graph; ++i) {
        launch();
      }
    }));
  }
  const std::size_t calls = path.graph ? spec.batch / kernels_per_graph : spec.batch;
  const auto submit_one = [&] {
    if (graph) {
      graph->launch(stream);
    } else {
      launch();
    }
  };
  const auto time_batch = [&] {
    double seconds = 0.0;
    switch (spec.measure) {
    case Measure::submit:
      seconds = host_seconds([&] {
        for (std::size_t i = 0; i < calls; ++i) {
          submit_one();
        }
      });
      sync(stream);
      break;
    case Measure::throughput:
      seconds = host_seconds([&] {
        for (std::size_t i = 0; i < calls; ++i) {
          submit_one();
        }
        sync(stream);
      });
      break;
    case Measure::roundtrip:
      seconds = host_seconds([&] {
        for (std::size_t i = 0; i < calls; ++i) {
          submit_one();
          sync(stream);
        }
      });
      break;
    }
    GPUBENCH_CUDART(cudaGetLastError());
    launches += spec.batch;
    return seconds;
  };

  static_cast<void>(time_batch()); // warm-up
  const LoopTimes times = timed_loop(state, spec.batch, time_batch);

  sync(stream);
  const LaunchCounts counts = read_launch_counts();
  if (counts.launched != launches || counts.intact != launches) {
    fail(state, fmt::format("{} launches made, {} kernels ran, {} saw their parameters intact",
                            launches, counts.launched, counts.intact));
    return;
  }
  // The median batch: a batch that an interrupt or a preempted host thread stretched is not what
  // a launch costs, and a mean over thousands of batches still moves with how many there were.
  state.counters["us_per_launch"] =
      times.median_batch_seconds * 1e6 / static_cast<double>(spec.batch);
  state.SetItemsProcessed(state.iterations());
}

} // namespace

void register_launch() {
  for (const Path& path : paths) {
    for (const MeasureSpec& spec : measures) {
      for (const LaunchTarget& target : launch_targets()) {
        benchmark::RegisterBenchmark(
            fmt::format("launch/{}/{}/params:{}", path.name, spec.name, target.bytes).c_str(),
            [&path, &spec, &target](benchmark::State& state) {
              guarded(state, [&] { run_launch(state, path, spec, target); });
            })
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
      }
    }
  }
  register_module_loading();
}

} // namespace gpubench::bench
