// latency/chase/<where>/<bytes>: how far away memory is, as one thread's chain of dependent
// loads over a random cycle through `bytes` of it (src/chase_ring.hpp), one 128-byte slot per
// load. <where>: `device` (the GPU's own memory, from inside the L1 through the L2 to HBM),
// `host_pinned` (pinned host memory mapped into the GPU, over PCIe) and `peer/<s>to<d>` (GPU s's
// memory chased by GPU d, over NVLink where they have it; the bytes move from s to d, as in the
// peer family's read mode).
//
// Timing: the GPU's own clocks inside the kernel, around the timed loads alone: clock64 gives
// SM cycles and %globaltimer nanoseconds, so neither the launch nor the warm lap counts, and
// ns_per_load and cycles_per_load are the median launch over its loads. A launch times 2^14
// loads, about 0.3 ms at 20 ns a load and more further out: the global timer's step (32 ns on
// the H200, launch/gpu_gap's timer_step_ns; it differs between GPUs) is 0.01% of the shortest,
// and a step of a whole microsecond would be 0.3%. Around each launch the
// harness's events time the batch as for every family (real_time, the stopping rule); they also
// hold the launch and the warm lap.
//
// Verified: before timing, the whole cycle is chased once in stretches, every slot's index
// summed, and must return to its start after exactly one load per slot (chase_full_cycle); after
// timing, the GPU must have made every launch the harness counted and stand where the ring says
// after all their loads (check_chase_position). Either failing fails the benchmark.
#include "chase_chain.hpp"
#include "chase_sizes.hpp"
#include "chased_memory.hpp"
#include "driver_api.hpp"
#include "family.hpp"
#include "harness.hpp"
#include "peer_access.hpp"
#include "pointer_chase.cuh"
#include "registry.hpp"
#include "timed_chase.hpp"

#include <fmt/format.h>

namespace gpubench::bench {
namespace {

// Loads a launch times. A cycle of at most this many slots is chased once more first, untimed,
// in the same launch, so the timed loads find the L1 (one per SM, and a launch may land on
// another SM) as the chase itself leaves it. A longer cycle (over 2 MiB) fits in no L1; its chase
// carries on from where the last launch stopped, so every load of it comes a full lap after the
// last load of the same slot.
constexpr std::uint64_t timed_loads = std::uint64_t{1} << 14;

// One chase: the GPU that chases, and whose memory (or the host's) it chases through.
struct ChaseCase {
  ChaseWhere where;
  int owner;  // the device whose memory is chased (peer); the chasing one otherwise
  int chaser; // the device that chases (peer); the harness's own otherwise
};

void measure_chase(const ChaseCase& c, Harness& h, std::size_t bytes) {
  const bool peer = c.where == ChaseWhere::peer;
  Session& chaser = peer ? h.session_on(c.chaser) : h.session();
  Session& owner = peer ? h.session_on(c.owner) : chaser;
  if (peer && !enable_peer_access(owner, chaser)) {
    throw SkipBenchmark(fmt::format("a chase through GPU{}'s memory from GPU{} needs peer access, "
                                    "which they lack",
                                    c.owner, c.chaser));
  }
  h.runs_on(peer ? std::vector<Session*>{&chaser, &owner} : std::vector<Session*>{&chaser});
  chaser.make_current();
  const ChasedMemory memory(c.where, owner, chaser, bytes);
  const ChaseRing& ring = chaser.state<ChaseRings>().of(bytes / chase_slot_bytes);
  const std::uint64_t base = memory.base();
  write_chain(ring, base, chaser);
  Harness::verify(chase_full_cycle(ring, base, chaser));

  const TimedChase& timed = chaser.state<TimedChase>();
  timed.start_at(slot_address(base, ring.slot_after(0)));
  const std::uint64_t warm_loads = ring.slots() <= timed_loads ? ring.slots() : 0;
  const LoopTimes times =
      h.exec(GpuBatches{.ops = 1, .lanes = {{chaser.stream(), chaser.context()}}},
             [&] { timed.launch(warm_loads, timed_loads, chaser.stream()); });

  chaser.make_current();
  GPUBENCH_CU(cuStreamSynchronize, chaser.stream());
  const TimedChase::Readings readings = timed.read();
  if (readings.launches != h.ops_performed()) {
    Harness::verify(fmt::format("the GPU ran {} timed chases, the harness launched {}",
                                readings.launches, h.ops_performed()));
  }
  Harness::verify(check_chase_position(ring, base, readings.launches * (warm_loads + timed_loads),
                                       readings.position));

  const ChaseFigures figures = chase_figures(readings, times.batches, timed_loads);
  h.state().counters["ns_per_load"] = figures.ns_per_load;
  h.state().counters["cycles_per_load"] = figures.cycles_per_load;
}

// What the latency family's flags choose.
struct LatencyOptions {
  std::vector<std::int64_t> device_sizes; // bytes
  std::vector<std::int64_t> link_sizes;   // bytes
};

void declare(Registry& registry, const LatencyOptions& options) {
  const auto body = [](ChaseCase c) {
    return [c](Harness& h, std::int64_t bytes) {
      measure_chase(c, h, static_cast<std::size_t>(bytes));
    };
  };
  registry.add("latency/chase/device", body({ChaseWhere::device, 0, 0}),
               {options.device_sizes, ""});
  registry.add("latency/chase/host_pinned", body({ChaseWhere::host_pinned, 0, 0}),
               {options.link_sizes, ""});
  const std::vector<int>& devices = registry.peer_devices();
  if (devices.size() < 2) {
    registry.note("latency/chase/peer/0to1/4096",
                  fmt::format("peer chases need two GPUs: {} found", devices.size()));
    return;
  }
  for (const int owner : devices) {
    for (const int chaser : devices) {
      if (owner != chaser) {
        registry.add_across_devices(fmt::format("latency/chase/peer/{}to{}", owner, chaser),
                                    body({ChaseWhere::peer, owner, chaser}),
                                    {options.link_sizes, ""});
      }
    }
  }
}

Family latency_family() {
  return {
      .name = "latency",
      .order = 50,
      .grammar = "latency/chase/<device|host_pinned|peer/<source>to<destination>>/<bytes>",
      .argument = Argument{.key = "", .unit = "bytes"},
      .figures =
          {{.counter = "ns_per_load", .unit = "ns", .scale = 1.0, .better = Better::lower},
           {.counter = "cycles_per_load", .unit = "cycles", .scale = 1.0, .better = Better::lower}},
      .kernels = {{"chase_link", reinterpret_cast<const void*>(chase_link)},
                  {"chase_segments", reinterpret_cast<const void*>(chase_segments)},
                  {"chase_timed", reinterpret_cast<const void*>(chase_timed)}},
      .flags = {device_sizes_flag(), link_sizes_flag()},
      .configure =
          [](const FlagValues& flags) {
            const LatencyOptions options{
                .device_sizes = chase_size_args(device_sizes_flag(), flags.of(device_sizes_flag())),
                .link_sizes = chase_size_args(link_sizes_flag(), flags.of(link_sizes_flag()))};
            return FamilyBenchmarks{.declare = [options](Registry& r) { declare(r, options); }};
          },
  };
}

} // namespace

GPUBENCH_FAMILY(latency_family);

} // namespace gpubench::bench
