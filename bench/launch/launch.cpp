// launch/<path>/<measure>/params:<bytes>: what each way of starting a kernel costs. Every path
// launches the same machine code (the runtime kernel's CUfunction from cudaGetFuncBySymbol),
// so a difference between paths is the API alone. Times are host-clock (UseManualTime).
// launch/floor/<path>/<measure>: the same launches of a kernel that does nothing, not even count
// itself: the API's floor, beside params:0's self-counting probe.
#include "driver_api.hpp"
#include "family.hpp"
#include "gpu_gap.hpp"
#include "gpu_loop.cuh"
#include "gpu_loop.hpp"
#include "graph_nodes.hpp"
#include "graph_slot.cuh"
#include "graph_update.hpp"
#include "harness.hpp"
#include "host_func.hpp"
#include "launch_counts.hpp"
#include "launch_flags.hpp"
#include "launch_gap.cuh"
#include "launch_mechanism.cuh"
#include "launch_mechanisms.hpp"
#include "launch_shape.cuh"
#include "launch_shapes.hpp"
#include "launch_targets.hpp"
#include "launch_threads.hpp"
#include "launcher.hpp"
#include "module_load.hpp"
#include "paired_launch.hpp"
#include "persistent_echo.cuh"
#include "persistent_floor.hpp"
#include "registry.hpp"
#include "start_latency_paths.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <vector>

namespace gpubench::bench {
namespace {

// How a launch is timed on the host. submit's batches stay far below the stream's queue depth,
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

// Times `launcher`'s launches through `path` as `measure` says and reports the median batch
// per launch: a batch that an interrupt or a preempted host thread stretched is not what a
// launch costs, and a mean over thousands of batches still moves with how many there were.
void time_launches(const Path& path, const Measure& measure, Launcher& launcher, Harness& h) {
  h.energy_per(EnergyPer::launch());
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
    throw SkipBenchmark(
        fmt::format("this driver refuses a {}-byte parameter block on this path: {}", target.bytes,
                    error.what()));
  }

  time_launches(path, measure, launcher, h);

  const std::uint64_t launches = 1 + h.ops_performed();
  const LaunchCounts counts = read_launch_counts();
  if (counts.launched != launches || counts.intact != launches) {
    throw VerificationFailure(
        fmt::format("{} launches made, {} kernels ran, {} saw their parameters intact", launches,
                    counts.launched, counts.intact));
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

  Launcher probe(launch_target(0), stream);
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
  kernels.push_back({"launch_gap_stamp", gap_target().symbol});
  kernels.push_back({"global_timer_step", reinterpret_cast<const void*>(global_timer_step)});
  kernels.push_back({"persistent_echo", reinterpret_cast<const void*>(persistent_echo)});
  kernels.push_back(
      {"launch_mechanism_stamp", reinterpret_cast<const void*>(launch_mechanism_stamp)});
  kernels.push_back({"launch_shape_stamp", reinterpret_cast<const void*>(launch_shape_stamp)});
  kernels.push_back({"graph_slot_write", reinterpret_cast<const void*>(graph_slot_write)});
  kernels.push_back({"gpu_loop_step", reinterpret_cast<const void*>(gpu_loop_step)});
  kernels.push_back({"gpu_loop_while_step", reinterpret_cast<const void*>(gpu_loop_while_step)});
  kernels.push_back({"gpu_loop_tail_step", reinterpret_cast<const void*>(gpu_loop_tail_step)});
  kernels.push_back({"gpu_loop_start", reinterpret_cast<const void*>(gpu_loop_start)});
  kernels.push_back({"gpu_loop_schedule", reinterpret_cast<const void*>(gpu_loop_schedule)});
  return kernels;
}

void declare(Registry& registry, const LaunchOptions& options) {
  for (const Path& path : launch_paths) {
    for (const Measure& measure : measures) {
      registry.add(fmt::format("launch/{}/{}", path.name, measure.name),
                   [&path, &measure](Harness& h, std::int64_t bytes) {
                     measure_launch(path, measure, launch_target(bytes), h);
                   },
                   {payload_args(), "params"});
    }
  }
  for (const Path& path : launch_paths) {
    for (const Measure& measure : measures) {
      registry.add(
          fmt::format("launch/floor/{}/{}", path.name, measure.name),
          [&path, &measure](Harness& h, std::int64_t) { measure_floor(path, measure, h); });
    }
  }
  register_gpu_gaps(registry);
  register_launch_mechanisms(registry);
  register_launch_shapes(registry);
  register_start_latencies(registry);
  register_persistent_floor(registry);
  register_graph_nodes(registry);
  register_graph_updates(registry, options.update_nodes);
  register_gpu_loops(registry, options.loop_iterations);
  register_launch_threads(registry, options.threads);
  register_host_func(registry);
  register_paired_launches(registry, payload_args());
  register_module_loading(registry);
}

Family launch_family() {
  return {
      .name = "launch",
      .order = 20,
      .grammar =
          "launch/<path>/<measure>/params:<bytes>, launch/floor/<path>/<measure>, "
          "launch/gpu_gap/<path>/params:<bytes>, launch/shape/<dimension>/<value>/<measure>, "
          "launch/start_latency/<path>, launch/persistent/roundtrip, "
          "launch/paired/submit/params:<bytes>, launch/module/<step>, "
          "launch/graph_nodes/<step>/nodes:<n>, launch/graph_update/<how>/nodes:<n>, "
          "launch/gpu_loop/<driver>/length:<n>, "
          "launch/threads/<path>/<streams>/host_threads:<n>, launch/host_func/roundtrip",
      .argument = Argument{.key = "params", .unit = "bytes"},
      // launch/paired/submit's figure is syscalls_per_launch, a launch through the API paths
      // counted in system calls timed in the same rounds (host_referenced: the host's drift
      // cancels from it); beside it the ratios between the paths, each with its interval, and
      // per-path medians (<path>_us); its real_time is one round of every path and reference.
      // launch/gpu_gap's figure is the GPU's median gap between kernels (the launch mechanisms'
      // paths too: launch_mechanisms.cpp, and launch/shape/.../gpu_gap's), launch/shape/.../
      // submit's us_per_launch is launch/<path>/submit's measure, launch/start_latency's
      // the median time from the launch call to the kernel's first instruction;
      // launch/persistent/roundtrip writes us_per_launch, per work item; launch/graph_nodes'
      // is the cost per node of a graph of n nodes (us_per_graph beside it, n times as much), as
      // is launch/graph_update's, per node given new parameters; launch/threads' us_per_launch
      // is the wall time per launch of all its threads together, launches_per_second the same
      // measurement as a rate; launch/host_func/roundtrip's us_per_launch is one round trip.
      .figures =
          {{.counter = "us_per_launch", .unit = "µs", .scale = 1.0, .better = Better::lower},
           {.counter = "gap_ns", .unit = "ns", .scale = 1.0, .better = Better::lower},
           {.counter = "start_latency_ns", .unit = "ns", .scale = 1.0, .better = Better::lower},
           {.counter = "us_per_node", .unit = "µs", .scale = 1.0, .better = Better::lower},
           {.counter = "us_per_iteration", .unit = "µs", .scale = 1.0, .better = Better::lower},
           {.counter = "launches_per_second",
            .unit = "launches/s",
            .scale = 1.0,
            .better = Better::higher,
            .panel = true},
           {.counter = "syscalls_per_launch",
            .unit = "getppid calls",
            .scale = 1.0,
            .better = Better::lower},
           energy_figure(uj_per_launch),
           energy_above_idle_figure(uj_per_launch)},
      .kernels = probe_kernels(),
      .flags = {launch_threads_flag(), graph_update_nodes_flag(), gpu_loop_iterations_flag()},
      .configure =
          [](const FlagValues& flags) {
            const LaunchOptions options = launch_options(flags);
            return FamilyBenchmarks{
                .declare = [options](Registry& r) { declare(r, options); },
                .context = [](const Registry&) { return module_loading_context(); }};
          },
  };
}

} // namespace

GPUBENCH_FAMILY(launch_family);

} // namespace gpubench::bench
