// copy/<direction>/<host memory>/<api>/<bytes>: host<->device and device<->device copies.
// async and zerocopy: GPU time from events, the batch started from behind a StreamGate (except
// pageable memory, which the driver stages synchronously). sync: the host clock around the
// blocking call, which is what a caller of cuMemcpyHtoD waits. sync_paired: the same blocking
// call in rounds beside host references, its cost over theirs (paired_copy.hpp).
#include "byte_sizes.hpp"
#include "copy_cases.hpp"
#include "driver_api.hpp"
#include "family.hpp"
#include "harness.hpp"
#include "numa.hpp"
#include "paired_copy.hpp"
#include "prepared_legs.hpp"
#include "registry.hpp"
#include "zerocopy.cuh"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace gpubench::bench {
namespace {

// Copies per timed batch: about 64 MiB in flight so small copies are not lost in event
// resolution, at most 64 so a gated stream stays far below its queue depth.
std::size_t batch_copies(std::size_t bytes) {
  return std::clamp<std::size_t>((std::size_t{64} << 20) / bytes, 1, 64);
}

void measure_copy(const CopyCase& c, Harness& h, std::size_t bytes) {
  Session& session = h.session();
  auto& buffers = session.state<CopyBuffers>();
  const std::vector<CopyLeg> legs = prepared_legs(c, session, buffers, bytes);

  const int sm_count = session.device().sm_count;
  const auto one_copy = [&] {
    for (const CopyLeg& leg : legs) {
      copy(c.api(), leg, bytes, sm_count);
    }
  };
  const std::size_t batch = batch_copies(bytes);
  h.energy_per(EnergyPer::bytes(c.bytes_moved(bytes)));
  LoopTimes times;
  if (c.api() == CopyApi::sync) {
    times = h.exec(HostClock{.ops = batch}, one_copy);
  } else {
    std::vector<LaneSpec> lanes;
    for (const CopyLeg& leg : legs) {
      lanes.push_back({leg.stream});
    }
    // A copy that cannot be gated is a pageable one: the driver stages it on the host.
    times = h.exec(GpuBatches{.ops = batch,
                              .gated = c.gateable(),
                              .host_paced = !c.gateable(),
                              .lanes = lanes},
                   one_copy);
  }

  GPUBENCH_CU(cuCtxSynchronize);
  for (const CopyLeg& leg : legs) {
    Harness::verify(leg.destination.check(buffers, bytes, leg.name));
  }
  benchmark::State& state = h.state();
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(c.bytes_moved(bytes)));
  state.counters["us_per_copy"] = times.seconds_per_op * 1e6;
}

// copy/<HtoD|DtoH>/pinned/async_all_devices/<bytes>: the same copy to or from every selected
// device at once, each on its own stream, all released together: what the host can feed. The
// bandwidth is the sum over devices; us_per_copy is the time of one round.
void measure_all_devices(bool to_device, const std::vector<int>& devices, Harness& h,
                         std::size_t bytes) {
  const HostMemoryKind& pinned = host_memory_kind("pinned");
  std::vector<CopyLeg> legs;
  std::vector<LaneSpec> lanes;
  std::vector<Session*> sessions;
  for (const int ordinal : devices) {
    Session& s = h.session_on(ordinal);
    s.make_current();
    auto& buffers = s.state<CopyBuffers>();
    if (const auto why = copy_room(bytes, buffers.capacity.size(), devices.size())) {
      throw SkipBenchmark(fmt::format("GPU{}: {}", ordinal, *why));
    }
    buffers.ensure_capacity(bytes);
    const Place host = Place::host(*buffers.host(pinned).a, pinned);
    const Place device = Place::device(*buffers.device_a);
    const CopyLeg leg = to_device ? CopyLeg{host, device, s.stream(), "device"}
                                  : CopyLeg{device, host, s.stream(), "host"};
    leg.source.fill_expected(buffers, bytes, leg.stream);
    leg.destination.poison(bytes, leg.stream);
    GPUBENCH_CU(cuCtxSynchronize);
    legs.push_back(leg);
    lanes.push_back({s.stream(), s.context()});
    sessions.push_back(&s);
  }
  h.runs_on(sessions);
  h.energy_per(EnergyPer::bytes(legs.size() * bytes));
  const LoopTimes times =
      h.exec(GpuBatches{.ops = batch_copies(bytes), .lanes = lanes}, [&] {
        for (const CopyLeg& leg : legs) {
          copy(CopyApi::async, leg, bytes, 0);
        }
      });
  for (std::size_t i = 0; i < legs.size(); ++i) {
    sessions[i]->make_current();
    Harness::verify(legs[i].destination.check(sessions[i]->state<CopyBuffers>(), bytes,
                                              legs[i].name));
  }
  benchmark::State& state = h.state();
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(legs.size() * bytes));
  state.counters["us_per_copy"] = times.seconds_per_op * 1e6;
}

// What the copy family's flags choose.
struct CopyOptions {
  std::vector<std::int64_t> sizes;        // bytes
  std::vector<std::int64_t> paired_sizes; // bytes, of copy/.../sync_paired
};

// The sizes of the paired synchronous copies: a few, as each runs rounds of three batches.
FamilyFlag paired_sizes_flag() {
  return {"--paired-sizes", "4K,1M",
          "sizes of copy/.../sync_paired, the sync copies timed beside host references: a list "
          "or ranges, as --sizes",
          [](std::string_view value) {
            static_cast<void>(byte_size_args(value, "--paired-sizes"));
          }};
}

void declare(Registry& registry, const CopyOptions& options) {
  // A host with one node holding memory has no wrong socket to measure.
  const bool far_memory = memory_nodes().size() > 1;
  for (const auto& c : copy_cases()) {
    if (c->far_node() && !far_memory) {
      continue;
    }
    registry.add(
        "copy/" + c->name(),
        [&c = *c](Harness& h, std::int64_t bytes) {
          measure_copy(c, h, static_cast<std::size_t>(bytes));
        },
        {options.sizes, ""});
  }
  register_paired_copies(registry, options.paired_sizes);
  if (registry.devices().size() < 2) {
    return;
  }
  for (const bool to_device : {true, false}) {
    registry.add_across_devices(
        fmt::format("copy/{}/pinned/async_all_devices", to_device ? "HtoD" : "DtoH"),
        [to_device, devices = registry.devices()](Harness& h, std::int64_t bytes) {
          measure_all_devices(to_device, devices, h, static_cast<std::size_t>(bytes));
        },
        {options.sizes, ""});
  }
}

Family copy_family() {
  return {
      .name = "copy",
      .order = 30,
      .grammar = "copy/<direction>/<memory>/<api>/<bytes>",
      .argument = Argument{.key = "", .unit = "bytes"},
      .figures = {{.counter = "bytes_per_second", .unit = "GB/s", .scale = 1e-9,
                   .better = Better::higher},
                  {.counter = "us_per_copy", .unit = "µs", .scale = 1.0, .better = Better::lower},
                  {.counter = "refs_per_copy",
                   .unit = "host references",
                   .scale = 1.0,
                   .better = Better::lower},
                  energy_figure(joules_per_gb), energy_above_idle_figure(joules_per_gb)},
      .kernels = {{"zerocopy_copy", reinterpret_cast<const void*>(zerocopy_copy)}},
      .flags = {sizes_flag(), paired_sizes_flag()},
      .configure =
          [](const FlagValues& flags) {
            const CopyOptions options{
                .sizes = byte_size_args(flags.of(sizes_flag())),
                .paired_sizes = byte_size_args(flags.of(paired_sizes_flag()), "--paired-sizes")};
            return FamilyBenchmarks{.declare = [options](Registry& r) { declare(r, options); }};
          },
  };
}

} // namespace

GPUBENCH_FAMILY(copy_family);

} // namespace gpubench::bench
