// launch/gpu_gap/<path>/params:0: how long the GPU sits between the end of one kernel and the
// start of the next, read from the GPU's own global timer (%globaltimer) inside the kernels, when
// a batch of launches through `path` waits in the stream's queue (behind a StreamGate) and runs
// back to back: what the GPU's front end spends per launch, whatever the host pays to submit it
// (launch/<path>/submit). The graph path replays the batch as one graph's kernel nodes.
//
// Timing: the harness times gated batches with events (real_time: the GPU's time per launch, the
// kernel and the gap after it). Then gap batches of the same launches run behind the gate, each
// kernel stamping the timer as it starts and ends (kernels/launch_gap.cuh); gap_ns is the median
// gap from one kernel's end stamp to the next one's start stamp, gap_p99_ns the 99th percentile,
// and timer_step_ns the smallest step this GPU's global timer takes, the gaps' resolution.
//
// Verified: the GPU counts every launch; the count must equal the launches the harness made, and
// in each gap batch every launch must have stamped, in stream order (each start at or after the
// previous end), or the benchmark fails.
#include "gpu_gap.hpp"

#include "cuda_error.hpp"
#include "gap_stamps.hpp"
#include "gated_batch.hpp"
#include "graph.hpp"
#include "harness.hpp"
#include "launch_gap.cuh"
#include "launcher.hpp"
#include "median.hpp"
#include "registry.hpp"
#include "session.hpp"
#include "stream_gate.hpp"
#include "timer_step.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace gpubench::bench {
namespace {

// Launches per batch: far below a stream's queue depth (~1000) and within the stamp capacity.
constexpr std::size_t launches_per_batch = 256;
static_assert(launches_per_batch <= gap_stamp_capacity);
// Gap batches after the timed loop: 4 x 255 gaps, enough for a 99th percentile.
constexpr std::size_t gap_batches = 4;

void measure_gpu_gap(const Path& path, Harness& h) {
  const CUstream stream = h.stream();
  Launcher launcher(gap_target(), stream);
  const auto launch = [&] { (launcher.*path.launch)(); };
  const GapStamps stamps;
  stamps.reset();

  static_cast<void>(h.exec(
      GpuBatches{.ops = launches_per_batch, .graph_ops = path.graph ? launches_per_batch : 0},
      launch));
  stamps.expect_ran(h.ops_performed());

  // The gap batches, each queued behind the gate and released at once, as the timed ones.
  std::optional<GraphExec> graph;
  if (path.graph) {
    graph.emplace(capture_graph(stream, [&] {
      for (std::size_t i = 0; i < launches_per_batch; ++i) {
        launch();
      }
    }));
  }
  Lane lane(stream, nullptr);
  std::vector<double> gaps;
  for (std::size_t b = 0; b < gap_batches; ++b) {
    stamps.reset();
    if (graph) {
      static_cast<void>(batch_seconds(&h.session().state<StreamGate>(), std::span(&lane, 1), 1,
                                      [&] { graph->launch(stream); }));
    } else {
      static_cast<void>(batch_seconds(&h.session().state<StreamGate>(), std::span(&lane, 1),
                                      launches_per_batch, launch));
    }
    GPUBENCH_CUDART(cudaGetLastError());
    stamps.expect_ran(launches_per_batch, "gap batch launches");
    const std::vector<GapStamp> batch = stamps.read(launches_per_batch);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const bool ordered = batch[i].start_ns != 0 && batch[i].start_ns <= batch[i].end_ns &&
                           (i == 0 || batch[i - 1].end_ns <= batch[i].start_ns);
      if (!ordered) {
        throw VerificationFailure(
            fmt::format("kernel {} of a gap batch stamped {}..{} ns, out of stream order", i,
                        batch[i].start_ns, batch[i].end_ns));
      }
      if (i > 0) {
        gaps.push_back(static_cast<double>(batch[i].start_ns - batch[i - 1].end_ns));
      }
    }
  }

  benchmark::State& state = h.state();
  state.counters["gap_ns"] = median(gaps);
  state.counters["gap_p99_ns"] = quantile(gaps, 0.99);
  state.counters["gaps"] = static_cast<double>(gaps.size());
  state.counters["timer_step_ns"] = static_cast<double>(h.session().state<TimerStep>().ns);
}

} // namespace

void register_gpu_gaps(Registry& registry) {
  for (const Path& path : launch_paths) {
    registry.add(fmt::format("launch/gpu_gap/{}", path.name),
                 [&path](Harness& h, std::int64_t) { measure_gpu_gap(path, h); }, {{0}, "params"});
  }
}

} // namespace gpubench::bench
