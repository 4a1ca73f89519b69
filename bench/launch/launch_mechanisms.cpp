// launch/gpu_gap/<mechanism>/params:32 and launch/<mechanism>/submit/params:32: what the launch
// mechanisms Hopper added cost the GPU and the host, beside the same launches without them
// (mechanism_launcher.hpp). They are paths of the launch family, measured as launch/gpu_gap and
// launch/<path>/submit measure the API paths, so a mechanism reads beside its baseline and
// beside the plain APIs in every table and plot, with no grammar of its own:
//
//   grid, cluster2, cluster8, cooperative   a wave (one block per SM, whole clusters of 8) with
//                                           no attribute, in clusters of 2 and of 8 blocks, and
//                                           launched cooperatively
//   pdl_off, pdl_early, pdl_late, pdl_exit  a chain of one-block kernels with 4 µs of work
//                                           after their wait: launched plainly, and with
//                                           programmatic stream serialization, each kernel
//                                           triggering its dependent first thing, last thing,
//                                           or not at all (the GPU triggers as it exits)
//   pdl_graph_<trigger>                     the same batch captured from the stream into a
//                                           graph and replayed: programmatic edges
//
// The parameter block is the kernel's 32 bytes (MechanismArgs), hence params:32.
//
// Gap: as launch/gpu_gap, a batch of 256 launches queued behind the gate runs back to back,
// timed by events (real_time: a launch, its kernel and the gap after it), then four more batches
// are read from each launch's stamps: its blocks' earliest start, earliest return from the wait
// for the previous kernel, and latest end. gap_ns is the median from one launch's last end to
// the next one's first return from its wait: the GPU's time between one kernel's work and the
// next's, whatever the mechanism lets the next kernel do before it (a plain launch's wait
// returns at once). start_gap_ns is the median from one launch's last end to the next one's
// first start, negative where the next kernel starts before the last one ends (the overlap
// programmatic launch allows), and wait_ns the median time a kernel spends in its wait.
//
// Submit: as launch/<path>/submit, batches of 64 launches on the host clock, the stream
// drained outside the timed region; us_per_launch is the median batch per launch. The graph
// forms have none: a replay's submit is launch/graph/submit's.
//
// Verified: the GPU counts every launch and every block; both must equal the launches made and
// their blocks, each block seeing its parameter block intact, the cluster it was launched in
// (%cluster_nctarank) and, launched cooperatively, its grid synchronising at a grid-wide barrier
// with every block arrived, or the benchmark fails. In each gap
// batch every launch stamped with all its blocks, and in the order the mechanism allows: a
// plain launch starts at or after the previous one's end; a programmatic one starts at or after
// the previous one's start and returns from its wait at or after the previous one's end.
//
// Skipped, with the reason: a mechanism this GPU lacks (compute capability below 9.0 for
// programmatic launch and clusters, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH or
// CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH 0), the kernel's code built for an older GPU than the
// mechanism needs, a launch or a graph capture the driver refuses.
#include "launch_mechanisms.hpp"

#include "context.hpp"
#include "cuda_error.hpp"
#include "driver_api.hpp"
#include "gated_batch.hpp"
#include "graph.hpp"
#include "harness.hpp"
#include "mechanism_launcher.hpp"
#include "mechanism_stamps.hpp"
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
#include <string>
#include <vector>

namespace gpubench::bench {
namespace {

// As launch/gpu_gap: far below a stream's queue depth, one batch fills the stamp slots.
constexpr std::size_t launches_per_batch = mechanism_launch_capacity;
constexpr std::size_t gap_batches = 4;
// As launch/<path>/submit.
constexpr std::size_t submits_per_batch = 64;

int device_attribute(const Session& session, CUdevice_attribute which) {
  int value = 0;
  GPUBENCH_CU(cuDeviceGetAttribute, &value, which, device_at(session.device().ordinal));
  return value;
}

std::string what_needs_sm90(const Mechanism& mechanism) {
  return mechanism.programmatic ? "programmatic dependent launch" : "a cluster launch";
}

// Why `mechanism` cannot run on the session's GPU, or nullopt.
std::optional<std::string> unsupported(const Mechanism& mechanism, const Session& session,
                                       const MechanismLauncher& launcher) {
  const DeviceInfo& device = session.device();
  if (mechanism.needs_sm90()) {
    if (device.compute_capability_major < 9) {
      return fmt::format("{} needs compute capability 9.0 or newer; GPU{} is {}.{}",
                         what_needs_sm90(mechanism), device.ordinal,
                         device.compute_capability_major, device.compute_capability_minor);
    }
    int binary = 0;
    GPUBENCH_CU(cuFuncGetAttribute, &binary, CU_FUNC_ATTRIBUTE_BINARY_VERSION, launcher.function());
    if (binary < 90) {
      return fmt::format("{} needs the kernel built for sm_90 or newer; GPU{} runs it as sm_{}",
                         what_needs_sm90(mechanism), device.ordinal, binary);
    }
  }
  if (mechanism.cluster_blocks > 1 &&
      device_attribute(session, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH) == 0) {
    return fmt::format("GPU{} does not launch clusters (CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH is 0)",
                       device.ordinal);
  }
  if (mechanism.cooperative &&
      device_attribute(session, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH) == 0) {
    return fmt::format(
        "GPU{} does not launch cooperatively (CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is 0)",
        device.ordinal);
  }
  return std::nullopt;
}

// Skips the benchmark where the mechanism cannot run here; otherwise makes one launch, untimed,
// and waits for it. A launch the driver refuses when it is called (a cluster it cannot place, a
// cooperative grid too large) skips with the driver's words; an error while it runs fails.
// A graph form also captures two launches into a graph, as its batches will be.
void first_launch(const Mechanism& mechanism, MechanismLauncher& launcher, Harness& h) {
  if (const auto why = unsupported(mechanism, h.session(), launcher)) {
    throw SkipBenchmark(*why);
  }
  try {
    launcher.launch();
  } catch (const CudaError& error) {
    throw SkipBenchmark(fmt::format("the driver refuses a {} launch of {} blocks here: {}",
                                    mechanism.name, launcher.blocks(), error.what()));
  }
  GPUBENCH_CU(cuStreamSynchronize, h.stream());
  if (mechanism.graph) {
    try {
      static_cast<void>(capture_graph(h.stream(), [&] {
        launcher.launch();
        launcher.launch();
      }));
    } catch (const CudaError& error) {
      throw SkipBenchmark(fmt::format("the driver cannot capture {} launches into a graph: {}",
                                      mechanism.name, error.what()));
    }
  }
}

// The samples of the gap batches.
struct GapSamples {
  std::vector<double> gaps;       // last end to the next first return from its wait
  std::vector<double> start_gaps; // last end to the next first start: negative, an overlap
  std::vector<double> waits;      // a launch's first start to its first return from its wait
};

// Checks one gap batch's stamps as the header says and adds its samples.
void add_batch(const Mechanism& mechanism, unsigned int blocks,
               const std::vector<MechanismStamp>& batch, GapSamples& samples) {
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const MechanismStamp& stamp = batch[i];
    if (stamp.blocks != blocks || stamp.intact != blocks) {
      throw VerificationFailure(fmt::format(
          "launch {} of a gap batch stamped {} of its {} blocks, {} of them as launched", i,
          stamp.blocks, blocks, stamp.intact));
    }
    if (!(stamp.first_start_ns <= stamp.first_waited_ns &&
          stamp.first_waited_ns <= stamp.last_end_ns)) {
      throw VerificationFailure(fmt::format(
          "launch {} of a gap batch started at {} ns, left its wait at {} ns and ended at {} ns", i,
          stamp.first_start_ns, stamp.first_waited_ns, stamp.last_end_ns));
    }
    if (i == 0) {
      continue;
    }
    const MechanismStamp& last = batch[i - 1];
    const bool ordered = mechanism.programmatic ? last.first_start_ns <= stamp.first_start_ns &&
                                                      last.last_end_ns <= stamp.first_waited_ns
                                                : last.last_end_ns <= stamp.first_start_ns;
    if (!ordered) {
      throw VerificationFailure(fmt::format(
          "launch {} of a gap batch started at {} ns and left its wait at {} ns; the one before "
          "it ran {}..{} ns, out of the order a {} launch allows",
          i, stamp.first_start_ns, stamp.first_waited_ns, last.first_start_ns, last.last_end_ns,
          mechanism.name));
    }
    // Differences taken in integers: a timestamp since 1970 in a double keeps 256 ns steps.
    samples.gaps.push_back(static_cast<double>(stamp.first_waited_ns - last.last_end_ns));
    samples.start_gaps.push_back(
        static_cast<double>(static_cast<std::int64_t>(stamp.first_start_ns - last.last_end_ns)));
    samples.waits.push_back(static_cast<double>(stamp.first_waited_ns - stamp.first_start_ns));
  }
}

void measure_gap(const Mechanism& mechanism, Harness& h) {
  const CUstream stream = h.stream();
  MechanismLauncher launcher(mechanism, grid_blocks(mechanism.grid, h.session().device().sm_count),
                             stream);
  first_launch(mechanism, launcher, h);
  const MechanismStamps stamps;
  stamps.reset();

  static_cast<void>(h.exec(
      GpuBatches{.ops = launches_per_batch, .graph_ops = mechanism.graph ? launches_per_batch : 0},
      [&] { launcher.launch(); }));
  stamps.expect_ran(h.ops_performed(), launcher.blocks());

  // The gap batches, each queued behind the gate and released at once, as the timed ones; each
  // launch stamps the slot of its place in the batch.
  std::optional<GraphExec> graph;
  if (mechanism.graph) {
    launcher.restart();
    graph.emplace(capture_graph(stream, [&] {
      for (std::size_t i = 0; i < launches_per_batch; ++i) {
        launcher.launch();
      }
    }));
  }
  auto& gate = h.session().state<StreamGate>();
  Lane lane(stream, nullptr);
  GapSamples samples;
  for (std::size_t b = 0; b < gap_batches; ++b) {
    stamps.reset();
    launcher.restart();
    if (graph) {
      static_cast<void>(
          batch_seconds(&gate, std::span(&lane, 1), 1, [&] { graph->launch(stream); }));
    } else {
      static_cast<void>(batch_seconds(&gate, std::span(&lane, 1), launches_per_batch,
                                      [&] { launcher.launch(); }));
    }
    stamps.expect_ran(launches_per_batch, launcher.blocks());
    add_batch(mechanism, launcher.blocks(), stamps.read(launches_per_batch), samples);
  }

  benchmark::State& state = h.state();
  state.counters["gap_ns"] = median(samples.gaps);
  state.counters["gap_p99_ns"] = quantile(samples.gaps, 0.99);
  state.counters["gaps"] = static_cast<double>(samples.gaps.size());
  state.counters["start_gap_ns"] = median(samples.start_gaps);
  state.counters["wait_ns"] = median(samples.waits);
  state.counters["timer_step_ns"] = static_cast<double>(h.session().state<TimerStep>().ns);
  state.counters["blocks"] = static_cast<double>(launcher.blocks());
  state.counters["body_ns"] = static_cast<double>(mechanism.body_ns);
}

void measure_submit(const Mechanism& mechanism, Harness& h) {
  MechanismLauncher launcher(mechanism, grid_blocks(mechanism.grid, h.session().device().sm_count),
                             h.stream());
  first_launch(mechanism, launcher, h);
  const MechanismStamps stamps;
  stamps.reset();

  h.energy_per(EnergyPer::launch());
  const LoopTimes times =
      h.exec(HostClock{.ops = submits_per_batch, .wait = HostClock::Wait::outside},
             [&] { launcher.launch(); });
  stamps.expect_ran(h.ops_performed(), launcher.blocks());

  benchmark::State& state = h.state();
  state.counters["us_per_launch"] = times.seconds_per_op * 1e6;
  state.counters["blocks"] = static_cast<double>(launcher.blocks());
  state.SetItemsProcessed(state.iterations());
}

} // namespace

void register_launch_mechanisms(Registry& registry) {
  const CaseArgs params{{static_cast<std::int64_t>(sizeof(MechanismArgs))}, "params"};
  for (const Mechanism& mechanism : launch_mechanisms) {
    registry.add(
        fmt::format("launch/gpu_gap/{}", mechanism.name),
        [&mechanism](Harness& h, std::int64_t) { measure_gap(mechanism, h); }, params);
  }
  for (const Mechanism& mechanism : launch_mechanisms) {
    if (!mechanism.graph) {
      registry.add(
          fmt::format("launch/{}/submit", mechanism.name),
          [&mechanism](Harness& h, std::int64_t) { measure_submit(mechanism, h); }, params);
    }
  }
}

} // namespace gpubench::bench
