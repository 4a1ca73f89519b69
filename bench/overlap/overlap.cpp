// overlap/<streams>/<bytes>: the copy engines and the SMs at once. Each benchmark runs a
// combination of streams (stream_combos.hpp), each its own work of <bytes>:
//
//   HtoD             cuMemcpyHtoDAsync from pinned host memory
//   DtoH             cuMemcpyDtoHAsync into pinned host memory
//   saxpy            y = alpha*x + y over <bytes> / 4 floats (saxpy_vec4, every SM busy)
//
// in HtoD_DtoH, HtoD_saxpy, DtoH_saxpy, HtoD_DtoH_saxpy, HtoDx2 and HtoDx4: both directions at
// once, a copy beside a running kernel, both beside it, and several host-to-device streams at
// once. Each stream has its own non-blocking stream and regions.
//
// A round is each stream's operations at once: as many of each that every stream alone lasts about
// as long as the longest one's single operation and at least 1 ms (ops_per_round), so no stream
// runs alone for most of the round; sized first from one operation alone, then again from each
// stream's round alone, whose queued operations take less than a single one. Each stream's round is
// measured alone, in the same process on the same stream and regions (alone_round.hpp), before and
// after the rounds at once, and the faster kept; the rounds at once are the timed loop: every
// stream held behind one StreamGate, every operation queued, all released together, each stream's
// events around its own work. The figures: `overlap`, the streams' seconds alone summed over the
// round's wall time at once (1 where they take turns, the number of streams where each keeps its
// pace), beside `overlap_ideal`, what it would be where every stream kept its pace alone; each
// stream's rate at once and alone, and the one as a share of the other (overlap_figures.hpp).
// Verified after the timed loop: every byte of every copy's destination; then, from fresh sources
// and a poisoned destination, one more round at once, every copy checked again and the saxpy's y
// against the CPU's reference of as many saxpys.
#include "alone_round.hpp"
#include "cuda_error.hpp"
#include "driver_api.hpp"
#include "family.hpp"
#include "harness.hpp"
#include "overlap_buffers.hpp"
#include "overlap_figures.hpp"
#include "overlap_sizes.hpp"
#include "registry.hpp"
#include "room.hpp"
#include "saxpy.cuh"
#include "sizes.hpp"
#include "stream_combos.hpp"
#include "stream_tasks.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpubench::bench {
namespace {

// Regions of a slot's size the family holds on each side: on the device, a region a copy slot
// and the saxpy's x, y and y's initial values; on the host, a slot's expected bytes, pinned
// region, the readback, and the saxpy's x, y0 and result.
constexpr std::size_t device_regions = max_streams + 3;
constexpr std::size_t host_regions = 2 * max_streams + 4;

// The copy engines the device reports (cudaDevAttrAsyncEngineCount).
int copy_engines(int ordinal) {
  int engines = 0;
  GPUBENCH_CUDART(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, ordinal));
  return engines;
}

void report(Harness& h, const StreamCombo& combo,
            const std::vector<std::unique_ptr<StreamTask>>& tasks,
            const std::vector<std::size_t>& ops, const std::vector<double>& alone,
            const LoopTimes& times, int engines) {
  const OverlapFigures figures =
      overlap_figures(alone, times.lane_seconds_per_op, times.seconds_per_op);
  benchmark::State& state = h.state();
  const std::vector<std::string> labels = combo.labels();
  std::size_t copy_bytes = 0;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const std::size_t round_bytes = ops[i] * tasks[i]->bytes_per_op();
    if (tasks[i]->is_copy()) {
      copy_bytes += round_bytes;
    }
    const auto bytes = static_cast<double>(round_bytes);
    state.counters[labels[i] + "_bytes_per_second"] = bytes / times.lane_seconds_per_op[i];
    state.counters[labels[i] + "_alone_bytes_per_second"] = bytes / alone[i];
    state.counters[labels[i] + "_pct_of_alone"] = figures.pct_of_alone[i];
    state.counters[labels[i] + "_ops_per_round"] = static_cast<double>(ops[i]);
  }
  // The copies' bytes of a round over its wall time: what the copy engines moved at once.
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(copy_bytes));
  state.counters["overlap"] = figures.overlap;
  state.counters["overlap_ideal"] = figures.overlap_ideal;
  state.counters["slowest_pct_of_alone"] = figures.slowest_pct_of_alone;
  state.counters["us_per_round"] = times.seconds_per_op * 1e6;
  state.counters["copy_engines"] = engines;
}

void measure_overlap(const StreamCombo& combo, Harness& h, std::size_t bytes) {
  Session& session = h.session();
  const int engines = copy_engines(session.device().ordinal);
  if (engines < combo.copy_engines_needed()) {
    throw SkipBenchmark(fmt::format("{} needs {} copy engines at once, the device has {} "
                                    "(cudaDevAttrAsyncEngineCount)",
                                    combo.name(), combo.copy_engines_needed(), engines));
  }
  auto& buffers = session.state<OverlapBuffers>();
  if (const auto why = room_for(fmt::format("{} a stream", format_size(bytes)), bytes,
                                buffers.capacity.size(), {device_regions, host_regions})) {
    throw SkipBenchmark(*why);
  }
  buffers.ensure_capacity(bytes);
  const std::vector<std::unique_ptr<StreamTask>> tasks =
      make_stream_tasks(combo, bytes, buffers, session);
  for (const auto& task : tasks) {
    task->prepare();
  }

  std::vector<double> op_seconds;
  for (const auto& task : tasks) {
    op_seconds.push_back(one_op_seconds(session, task->stream(), [&] { task->enqueue(); }));
  }
  const auto rounds_alone = [&](const std::vector<std::size_t>& ops) {
    std::vector<double> seconds;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      seconds.push_back(alone_round_seconds(session, tasks[i]->stream(), ops[i],
                                            [&task = *tasks[i]] { task.enqueue(); }));
    }
    return seconds;
  };
  std::vector<std::size_t> ops = ops_per_round(op_seconds);
  std::vector<double> alone = rounds_alone(ops);
  // A single operation overstates what one takes among others queued behind it (an H100's
  // first 1 MiB host-to-device copy of a batch took five times a queued one's): the rounds
  // alone give each stream's seconds per queued operation, which size the rounds again.
  std::vector<double> queued_op_seconds;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    queued_op_seconds.push_back(alone[i] / static_cast<double>(ops[i]));
  }
  if (std::vector<std::size_t> resized = ops_per_round(queued_op_seconds); resized != ops) {
    ops = std::move(resized);
    alone = rounds_alone(ops);
  }

  std::vector<LaneSpec> lanes;
  for (const auto& task : tasks) {
    lanes.push_back({task->stream()});
  }
  const LoopTimes times = h.exec(GpuBatches{.ops = 1, .lanes = lanes}, [&] {
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      for (std::size_t op = 0; op < ops[i]; ++op) {
        tasks[i]->enqueue();
      }
    }
  });

  // The timed loop's last round: every byte of every copy. The saxpy's y has been through
  // every round since its start, too many saxpys to check on the CPU: it is checked below.
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    if (tasks[i]->is_copy()) {
      Harness::verify(tasks[i]->check(ops[i]));
    }
  }
  // Each stream alone again, after the rounds at once, its faster pace of the two kept: a host's
  // copies can run at a lower level for a while (an H100's 1 MiB host-to-device rounds alone
  // took up to 1.8 times as long as the same rounds beside other streams), which measured alone
  // only before would read as a stream faster beside others than alone.
  const std::vector<double> alone_after = rounds_alone(ops);
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    alone[i] = std::min(alone[i], alone_after[i]);
  }
  // One round more at once from fresh sources and poisoned destinations, every stream checked.
  for (const auto& task : tasks) {
    task->prepare();
  }
  static_cast<void>(h.run_once());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    Harness::verify(tasks[i]->check(ops[i]));
  }
  report(h, combo, tasks, ops, alone, times, engines);
}

// What the overlap family's flags choose.
struct OverlapOptions {
  std::vector<std::int64_t> sizes; // bytes a stream
};

void declare(Registry& registry, const OverlapOptions& options) {
  for (const StreamCombo& combo : stream_combos()) {
    registry.add("overlap/" + combo.name(),
                 [&combo](Harness& h, std::int64_t bytes) {
                   measure_overlap(combo, h, static_cast<std::size_t>(bytes));
                 },
                 {options.sizes, ""});
  }
}

Family overlap_family() {
  return {
      .name = "overlap",
      .order = 36,
      .grammar = "overlap/<streams>/<bytes>",
      .argument = Argument{.key = "", .unit = "bytes"},
      .figures =
          {{.counter = "overlap",
            .unit = "streams at once",
            .scale = 1.0,
            .better = Better::higher},
           {.counter = "bytes_per_second", .unit = "GB/s", .scale = 1e-9, .better = Better::higher},
           {.counter = "us_per_round", .unit = "µs", .scale = 1.0, .better = Better::lower},
           {.counter = "slowest_pct_of_alone",
            .unit = "% of alone",
            .scale = 1.0,
            .better = Better::higher,
            .panel = true}},
      .kernels = {{"saxpy_vec4", reinterpret_cast<const void*>(saxpy_vec4)}},
      .flags = {overlap_sizes_flag()},
      .configure =
          [](const FlagValues& flags) {
            const OverlapOptions options{.sizes =
                                             overlap_size_args(flags.of(overlap_sizes_flag()))};
            return FamilyBenchmarks{.declare = [options](Registry& r) { declare(r, options); }};
          },
  };
}

} // namespace

GPUBENCH_FAMILY(overlap_family);

} // namespace gpubench::bench
