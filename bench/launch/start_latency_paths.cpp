// launch/start_latency/<path>: how long a launch through `path` takes from the host's launch call
// to the kernel's first instruction, on an idle stream: what a host that needs one kernel now
// waits before it runs. The graph path replays a graph of one kernel node.
//
// Timing: the harness times a launch and its synchronisation, as launch/<path>/roundtrip does
// (real_time). Then 1024 launches through the path each wait for an idle stream, read the
// host's clock (host_clock_ns: std::chrono::steady_clock) right before the launch call, and
// launch a kernel that reads the GPU's global timer (%globaltimer) as its first instruction
// (launch_gap_stamp). The host's clock is put on the GPU's timer by the clock relation measured
// right before and right after those launches (host_gpu_clock.hpp: a persistent kernel echoing
// work items through mapped host memory, the offset from the tightest round trip, its
// uncertainty half that round trip and half a timer step), interpolated between the two.
//
// Counters: start_latency_ns and start_latency_p99_ns, the median and the 99th percentile;
// clock_offset_uncertainty_ns, the larger of the two relations' uncertainties, and
// timer_step_ns (a latency is off by at most their sum less half a step: the stamp is a count
// of the timer, taken as the middle of its step); clock_drift_ns, how far the offset moved from
// the first relation to the second.
//
// Verified: the GPU counts every launch, the timed loop's and the stamped ones; every stamped
// launch stamped, in stream order; both relations' kernels answered every work item in order;
// and no launch started before its call by more than the uncertainty allows, which only a wrong
// clock relation gives: it fails the benchmark rather than publishing a wrong number.
#include "start_latency_paths.hpp"

#include "clock_relation.hpp"
#include "cuda_error.hpp"
#include "driver_api.hpp"
#include "gap_stamps.hpp"
#include "graph.hpp"
#include "harness.hpp"
#include "host_gpu_clock.hpp"
#include "launch_targets.hpp"
#include "launcher.hpp"
#include "median.hpp"
#include "registry.hpp"
#include "session.hpp"
#include "start_latency.hpp"
#include "timer_step.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

namespace gpubench::bench {
namespace {

// As launch/<path>/roundtrip's batch.
constexpr std::size_t launches_per_batch = 16;
// One per stamp slot: enough for a 99th percentile, in milliseconds.
constexpr std::size_t stamped_launches = gap_stamp_capacity;

void measure_start_latency(const Path& path, Harness& h) {
  const CUstream stream = h.stream();
  Launcher launcher(gap_target(), stream);
  const auto launch = [&] { (launcher.*path.launch)(); };
  const GapStamps stamps;
  stamps.reset();
  static_cast<void>(h.exec(HostClock{.ops = launches_per_batch,
                                     .wait = HostClock::Wait::after_each,
                                     .graph_ops = path.graph ? std::size_t{1} : 0},
                           launch));
  stamps.expect_ran(h.ops_performed());

  // The graph's first replay, which uploads it, stays out of the stamped launches.
  std::optional<GraphExec> graph;
  if (path.graph) {
    graph.emplace(capture_graph(stream, launch));
    graph->upload(stream);
    graph->launch(stream);
  }
  const auto start = [&] {
    if (graph) {
      graph->launch(stream);
    } else {
      launch();
    }
  };
  const auto step_ns = static_cast<double>(h.session().state<TimerStep>().ns);
  stamps.reset();
  const ClockRelation before = measure_clock_relation(step_ns);
  std::vector<StampedLaunch> launches(stamped_launches);
  for (StampedLaunch& stamped : launches) {
    GPUBENCH_CU(cuStreamSynchronize, stream);
    stamped.host_ns = host_clock_ns();
    start();
  }
  GPUBENCH_CU(cuStreamSynchronize, stream);
  GPUBENCH_CUDART(cudaGetLastError());
  const ClockRelation after = measure_clock_relation(step_ns);

  stamps.expect_ran(stamped_launches, "stamped launches");
  const std::vector<GapStamp> stamped = stamps.read(stamped_launches);
  for (std::size_t i = 0; i < stamped.size(); ++i) {
    if (stamped[i].start_ns == 0 || (i > 0 && stamped[i].start_ns < stamped[i - 1].end_ns)) {
      throw VerificationFailure(fmt::format(
          "stamped launch {} started at {} ns, out of stream order", i, stamped[i].start_ns));
    }
    launches[i].gpu_start_ns = stamped[i].start_ns;
  }
  const StartLatencies latencies = start_latencies(launches, before, after, step_ns);
  Harness::verify(find_impossible_start(latencies));

  benchmark::State& state = h.state();
  state.counters["start_latency_ns"] = median(latencies.ns);
  state.counters["start_latency_p99_ns"] = quantile(latencies.ns, 0.99);
  state.counters["clock_offset_uncertainty_ns"] =
      std::max(before.uncertainty_ns, after.uncertainty_ns);
  state.counters["clock_drift_ns"] = static_cast<double>(clock_drift_ns(before, after));
  state.counters["timer_step_ns"] = step_ns;
  state.counters["stamped_launches"] = static_cast<double>(stamped_launches);
}

} // namespace

void register_start_latencies(Registry& registry) {
  for (const Path& path : launch_paths) {
    registry.add(fmt::format("launch/start_latency/{}", path.name),
                 [&path](Harness& h, std::int64_t) { measure_start_latency(path, h); });
  }
}

} // namespace gpubench::bench
