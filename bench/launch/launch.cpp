// launch/<path>/<measure>/params:<bytes>: what each way of starting a kernel costs. Every path
// launches the same machine code (the runtime kernel's CUfunction from cudaGetFuncBySymbol),
// so a difference between paths is the API alone. Times are host-clock (UseManualTime).
// launch/floor/<path>/<measure>: the same launches of a kernel that does nothing, not even count
// itself: the API's floor, beside params:0's self-counting probe.
#include "driver_api.hpp"
#include "family.hpp"
#include "harness.hpp"
#include "kernel_params.hpp"
#include "launch_counts.hpp"
#include "launch_probe.cuh"
#include "launch_targets.hpp"
#include "module_load.hpp"
#include "registry.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
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

// How a launch is timed on the host. submit stays far below the stream's queue depth (~1000),
// so the host never blocks on a full queue; the GPU drains the batch outside the timed region.
// A roundtrip is one kernel and its synchronisation, so its graph holds a single launch.
struct Measure {
  const char* name;
  std::size_t batch;
  HostClock::Wait wait;
  std::size_t kernels_per_graph;
};

const Measure measures[] = {
    {"submit", 64, HostClock::Wait::outside, 64},
    {"throughput", 512, HostClock::Wait::after_batch, 512},
    {"roundtrip", 16, HostClock::Wait::after_each, 1},
};

const LaunchTarget& target_of(std::int64_t bytes) {
  for (const LaunchTarget& target : launch_targets()) {
    if (static_cast<std::int64_t>(target.bytes) == bytes) {
      return target;
    }
  }
  throw std::logic_error("no launch probe takes this parameter size");
}

// Times `launcher`'s launches through `path` as `measure` says and reports the median batch
// per launch: a batch that an interrupt or a preempted host thread stretched is not what a
// launch costs, and a mean over thousands of batches still moves with how many there were.
void time_launches(const Path& path, const Measure& measure, Launcher& launcher, Harness& h) {
  const LoopTimes times = h.exec(HostClock{.ops = measure.batch,
                                           .wait = measure.wait,
                                           .graph_ops = path.graph ? measure.kernels_per_graph : 0},
                                 [&] { (launcher.*path.launch)(); });
  benchmark::State& state = h.state();
  state.counters["us_per_launch"] = times.seconds_per_op * 1e6;
  state.SetItemsProcessed(state.iterations());
}

void measure_launch(const Path& path, const Measure& measure, const LaunchTarget& target,
                    Harness& h) {
  const CUstream stream = h.stream();
  Launcher launcher(target, stream);
  const auto launch = [&] { (launcher.*path.launch)(); };

  GPUBENCH_CU(cuStreamSynchronize, stream);
  reset_launch_counts();
  try {
    launch();
    GPUBENCH_CUDART(cudaGetLastError());
    GPUBENCH_CU(cuStreamSynchronize, stream);
  } catch (const CudaError& error) {
    throw SkipBenchmark(fmt::format("this driver refuses a {}-byte parameter block on this path: {}",
                                    target.bytes, error.what()));
  }

  time_launches(path, measure, launcher, h);

  const std::uint64_t launches = 1 + h.ops_performed();
  const LaunchCounts counts = read_launch_counts();
  if (counts.launched != launches || counts.intact != launches) {
    throw VerificationFailure(fmt::format("{} launches made, {} kernels ran, {} saw their parameters intact",
                                          launches, counts.launched, counts.intact));
  }
}

// The floor kernel leaves no trace, so what is checked is the stream: every launch call returned
// success (the harness checks each, and the runtime's last error after each batch), and one
// counting probe launched through the same path on the same stream after the last of them ran,
// and the stream finished without an error. Stream order puts the probe after every floor
// launch, so all of them were executed or failed, and a failed kernel would have left an error.
// What is not seen is each floor kernel's own run: nothing in it could show one.
void measure_floor(const Path& path, const Measure& measure, Harness& h) {
  const CUstream stream = h.stream();
  Launcher launcher(floor_target(), stream);
  GPUBENCH_CU(cuStreamSynchronize, stream);
  reset_launch_counts();
  time_launches(path, measure, launcher, h);

  Launcher probe(target_of(0), stream);
  (probe.*path.launch)();
  GPUBENCH_CUDART(cudaGetLastError());
  GPUBENCH_CU(cuStreamSynchronize, stream);
  const LaunchCounts counts = read_launch_counts();
  if (counts.launched != 1 || counts.intact != 1) {
    throw VerificationFailure(fmt::format(
        "after {} uncounted launches, the counting probe queued behind them ran {} times",
        h.ops_performed(), counts.launched));
  }
  h.state().counters["launches"] = static_cast<double>(h.ops_performed());
}

std::vector<std::int64_t> payload_args() {
  std::vector<std::int64_t> args;
  for (const LaunchTarget& target : launch_targets()) {
    args.push_back(static_cast<std::int64_t>(target.bytes));
  }
  return args;
}

std::vector<KernelSymbol> probe_kernels() {
  std::vector<KernelSymbol> kernels;
  for (const LaunchTarget& target : launch_targets()) {
    kernels.push_back({fmt::format("launch_probe_{}", target.bytes), target.symbol});
  }
  kernels.push_back({"launch_floor_empty", floor_target().symbol});
  return kernels;
}

Family launch_family() {
  return {
      .name = "launch",
      .order = 20,
      .kernels = probe_kernels(),
      .flags = {},
      .declare =
          [](Registry& registry) {
            for (const Path& path : paths) {
              for (const Measure& measure : measures) {
                registry.add(
                    fmt::format("launch/{}/{}", path.name, measure.name),
                    [&path, &measure](Harness& h, std::int64_t bytes) {
                      measure_launch(path, measure, target_of(bytes), h);
                    },
                    {payload_args(), "params"});
              }
            }
            for (const Path& path : paths) {
              for (const Measure& measure : measures) {
                registry.add(fmt::format("launch/floor/{}/{}", path.name, measure.name),
                             [&path, &measure](Harness& h, std::int64_t) {
                               measure_floor(path, measure, h);
                             });
              }
            }
            register_module_loading(registry);
          },
  };
}

} // namespace

GPUBENCH_FAMILY(launch_family);

} // namespace gpubench::bench
