// launch/shape/<dimension>/<value>/{submit,gpu_gap}: what shapes a launch. One kernel
// (kernels/launch_shape.cu) through cuLaunchKernel, in shapes that vary one dimension of a base
// (a wave of one 32-thread block per SM, no dynamic shared memory; shape_cases.hpp):
//
//   grid/blocks:1, grid/waves:<n>   1 block, and 1, 4, 16 and 64 waves of one block per SM
//   block/threads:<n>               a wave of blocks of 32 to 1024 threads
//   smem/bytes:<n>                  a wave of blocks given 0 bytes to 227 KiB of dynamic shared
//                                   memory, each block writing every word and reading it back
//   carveout/fixed, .../alternating a wave of blocks of 8 KiB, the carveout preference set
//                                   before every launch: to the most shared memory each time,
//                                   or swinging between the most L1 and the most shared memory
//
// Grids are named in waves, not blocks: the names are made before any GPU is opened (a listing
// needs none) and say the same on GPUs of different SM counts, so runs compare by name; the
// `blocks` counter says what a wave was here.
//
// gpu_gap: as launch/gpu_gap, the harness times gated batches of 256 launches with events
// (real_time: a launch, its kernel and the gap after it), then four more gated batches are read
// from each launch's stamps (its blocks' earliest start and latest end). gap_ns is the median from
// one launch's last end to the next one's first start, gap_p99_ns its 99th percentile.
// submit: as launch/<path>/submit, batches of 64 launches on the host clock, the stream drained
// outside the timed region; us_per_launch is the median batch per launch. A carveout shape's
// launch includes its cuFuncSetAttribute call, in both measures alike.
//
// Verified: the GPU counts every launch and, per launch, its blocks; both must equal those made,
// every block seeing its parameter block, grid, block and dynamic shared memory as launched
// (%dynamic_smem_size, and every word of it written and read back); in each gap batch every
// launch stamped with all its blocks, each starting at or after the previous one's end.
//
// Skipped, with the reason: a block larger than the kernel may have here, or more dynamic shared
// memory than a block may opt in to on this GPU (227 KiB on sm_90, less on others).
#include "launch_shapes.hpp"

#include "cuda_error.hpp"
#include "driver_api.hpp"
#include "gated_batch.hpp"
#include "harness.hpp"
#include "median.hpp"
#include "registry.hpp"
#include "session.hpp"
#include "shape_cases.hpp"
#include "shape_launcher.hpp"
#include "shape_stamps.hpp"
#include "stream_gate.hpp"
#include "timer_step.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gpubench::bench {
namespace {

// As launch/gpu_gap: far below a stream's queue depth, one batch fills the stamp slots.
constexpr std::size_t launches_per_batch = shape_launch_capacity;
constexpr std::size_t gap_batches = 4;
// As launch/<path>/submit.
constexpr std::size_t submits_per_batch = 64;

int function_attribute(CUfunction function, CUfunction_attribute which) {
  int value = 0;
  GPUBENCH_CU(cuFuncGetAttribute, &value, which, function);
  return value;
}

// The most dynamic shared memory a block of the kernel may opt in to on the session's GPU;
// skips the benchmark where `shape` does not fit a block of the kernel there.
int dynamic_shared_most(const LaunchShape& shape, const Session& session) {
  const CUfunction function = driver_function(reinterpret_cast<const void*>(launch_shape_stamp));
  int optin = 0;
  GPUBENCH_CU(cuDeviceGetAttribute, &optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
              device_at(session.device().ordinal));
  const int static_bytes = function_attribute(function, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  if (const auto why =
          shape_unfit(shape, function_attribute(function, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
                      optin, static_bytes)) {
    throw SkipBenchmark(fmt::format("GPU{}: {}", session.device().ordinal, *why));
  }
  return optin - static_bytes;
}

// The launcher of `shape` on the harness's stream, after one untimed launch waited for: the
// first launch of a shape is where the driver first meets its attributes and size.
struct ShapeRun {
  ShapeRun(const LaunchShape& shape, Harness& h)
      : launcher(shape, shape_grid_blocks(shape.grid, h.session().device().sm_count),
                 dynamic_shared_most(shape, h.session()), h.stream()) {
    launcher.launch();
    GPUBENCH_CU(cuStreamSynchronize, h.stream());
    stamps.reset();
  }
  ShapeLauncher launcher;
  ShapeStamps stamps;
};

// Checks one gap batch's stamps as the header says and adds its gaps.
void add_batch(unsigned int blocks, const std::vector<ShapeStamp>& batch,
               std::vector<double>& gaps) {
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const ShapeStamp& stamp = batch[i];
    if (stamp.blocks != blocks || stamp.intact != blocks ||
        stamp.first_start_ns > stamp.last_end_ns) {
      throw VerificationFailure(fmt::format(
          "launch {} of a gap batch stamped {} of its {} blocks, {} of them as launched, "
          "from {} ns to {} ns",
          i, stamp.blocks, blocks, stamp.intact, stamp.first_start_ns, stamp.last_end_ns));
    }
    if (i == 0) {
      continue;
    }
    const ShapeStamp& last = batch[i - 1];
    if (stamp.first_start_ns < last.last_end_ns) {
      throw VerificationFailure(fmt::format(
          "launch {} of a gap batch started at {} ns, before the one ahead of it ended at {} ns", i,
          stamp.first_start_ns, last.last_end_ns));
    }
    // Differences taken in integers: a timestamp since 1970 in a double keeps 256 ns steps.
    gaps.push_back(static_cast<double>(stamp.first_start_ns - last.last_end_ns));
  }
}

void report_shape(const LaunchShape& shape, unsigned int blocks, benchmark::State& state) {
  state.counters["blocks"] = static_cast<double>(blocks);
  state.counters["block_threads"] = static_cast<double>(shape.block_threads);
  state.counters["shared_bytes"] = static_cast<double>(shape.shared_bytes);
}

void measure_gap(const LaunchShape& shape, Harness& h) {
  ShapeRun run(shape, h);
  ShapeLauncher& launcher = run.launcher;
  static_cast<void>(h.exec(GpuBatches{.ops = launches_per_batch}, [&] { launcher.launch(); }));
  run.stamps.expect_ran(h.ops_performed(), launcher.blocks());

  // The gap batches, each queued behind the gate and released at once, as the timed ones; each
  // launch stamps the slot of its place in the batch.
  auto& gate = h.session().state<StreamGate>();
  Lane lane(h.stream(), nullptr);
  std::vector<double> gaps;
  for (std::size_t b = 0; b < gap_batches; ++b) {
    run.stamps.reset();
    launcher.restart();
    static_cast<void>(
        batch_seconds(&gate, std::span(&lane, 1), launches_per_batch, [&] { launcher.launch(); }));
    run.stamps.expect_ran(launches_per_batch, launcher.blocks());
    add_batch(launcher.blocks(), run.stamps.read(launches_per_batch), gaps);
  }

  benchmark::State& state = h.state();
  state.counters["gap_ns"] = median(gaps);
  state.counters["gap_p99_ns"] = quantile(gaps, 0.99);
  state.counters["gaps"] = static_cast<double>(gaps.size());
  state.counters["timer_step_ns"] = static_cast<double>(h.session().state<TimerStep>().ns);
  report_shape(shape, launcher.blocks(), state);
}

void measure_submit(const LaunchShape& shape, Harness& h) {
  ShapeRun run(shape, h);
  ShapeLauncher& launcher = run.launcher;
  h.energy_per(EnergyPer::launch());
  const LoopTimes times =
      h.exec(HostClock{.ops = submits_per_batch, .wait = HostClock::Wait::outside},
             [&] { launcher.launch(); });
  run.stamps.expect_ran(h.ops_performed(), launcher.blocks());

  benchmark::State& state = h.state();
  state.counters["us_per_launch"] = times.seconds_per_op * 1e6;
  report_shape(shape, launcher.blocks(), state);
  state.SetItemsProcessed(state.iterations());
}

} // namespace

void register_launch_shapes(Registry& registry) {
  for (const LaunchShape& shape : launch_shapes()) {
    registry.add(shape_name(shape, "submit"),
                 [&shape](Harness& h, std::int64_t) { measure_submit(shape, h); });
    registry.add(shape_name(shape, "gpu_gap"),
                 [&shape](Harness& h, std::int64_t) { measure_gap(shape, h); });
  }
}

} // namespace gpubench::bench
