// peer/<engine>/<mode>/<src>to<dst>/<bytes>: copies between two GPUs. Engine `ce`: the copy
// engines (cuMemcpyPeerAsync); `sm`: a kernel copying through the peer mapping. Mode `read`: the
// destination GPU's stream pulls; `write`: the source GPU's stream pushes; `bidir`: both GPUs
// push at once, released together, and the bandwidth is the sum. GPU time from events, every
// byte verified.
#include "byte_sizes.hpp"
#include "driver_api.hpp"
#include "family.hpp"
#include "harness.hpp"
#include "host_bytes.hpp"
#include "peer_access.hpp"
#include "peer_buffers.hpp"
#include "registry.hpp"
#include "sizes.hpp"
#include "sm_copy.cuh"
#include "sm_copy_launch.hpp"
#include "topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace gpubench::bench {
namespace {

enum class Engine { ce, sm };
enum class Mode { read, write, bidir };

struct PeerCase {
  const char* engine_name;
  Engine engine;
  const char* mode_name;
  Mode mode;
};

const PeerCase cases[] = {
    {"ce", Engine::ce, "read", Mode::read},   {"ce", Engine::ce, "write", Mode::write},
    {"ce", Engine::ce, "bidir", Mode::bidir}, {"sm", Engine::sm, "read", Mode::read},
    {"sm", Engine::sm, "write", Mode::write}, {"sm", Engine::sm, "bidir", Mode::bidir},
};

// One copy of an operation: from a source buffer to a destination buffer, made on the stream of
// the device `runs_on`.
struct PeerLeg {
  CUdeviceptr from;
  Session* from_device;
  CUdeviceptr to;
  Session* to_device;
  Session* runs_on;
};

// Copies per timed batch: about 1 GiB in flight, so a large copy is timed back to back with
// the next (a single copy's ramp-up and drain would otherwise count against the link), at most
// 64 so a gated stream stays far below its queue depth.
std::size_t batch_copies(std::size_t bytes) {
  return std::clamp<std::size_t>((std::size_t{1} << 30) / bytes, 1, 64);
}

PeerBuffers& buffers_on(Session& session, std::size_t bytes, const PeerExpected& expected) {
  session.make_current();
  const std::size_t free_bytes = free_device_bytes();
  auto& buffers = session.state<PeerBuffers>();
  if (bytes > buffers.capacity.size() && 2 * bytes > free_bytes) {
    throw SkipBenchmark(fmt::format("{} peer copies need {} on GPU{}, {} is free",
                                    format_size(bytes), format_size(2 * bytes),
                                    session.device().ordinal, format_size(free_bytes)));
  }
  buffers.ensure_capacity(bytes, expected);
  return buffers;
}

std::vector<PeerLeg> legs_of(Mode mode, Session& src, PeerBuffers& src_buffers, Session& dst,
                             PeerBuffers& dst_buffers) {
  const PeerLeg forward{src_buffers.source->ptr(), &src, dst_buffers.destination->ptr(), &dst,
                        mode == Mode::read ? &dst : &src};
  if (mode != Mode::bidir) {
    return {forward};
  }
  return {forward, {dst_buffers.source->ptr(), &dst, src_buffers.destination->ptr(), &src, &dst}};
}

void copy(Engine engine, const PeerLeg& leg, std::size_t bytes) {
  if (engine == Engine::ce) {
    GPUBENCH_CU(cuMemcpyPeerAsync, leg.to, leg.to_device->context(), leg.from,
                leg.from_device->context(), bytes, leg.runs_on->stream());
    return;
  }
  leg.runs_on->make_current();
  sm_copy_launch(leg.from, leg.to, bytes, leg.runs_on->device().sm_count, leg.runs_on->stream());
}

void measure_peer(const PeerCase& c, int source, int destination, Harness& h,
                  std::size_t bytes) {
  Session& src = h.session_on(source);
  Session& dst = h.session_on(destination);
  const bool access = enable_peer_access(src, dst);
  if (c.engine == Engine::sm && !access) {
    throw SkipBenchmark(fmt::format("an SM copy needs peer access, which GPU{} and GPU{} lack",
                                    source, destination));
  }
  auto& expected = h.session().state<PeerExpected>();
  expected.ensure_capacity(bytes);
  PeerBuffers& src_buffers = buffers_on(src, bytes, expected);
  PeerBuffers& dst_buffers = buffers_on(dst, bytes, expected);
  const std::vector<PeerLeg> legs = legs_of(c.mode, src, src_buffers, dst, dst_buffers);
  for (const PeerLeg& leg : legs) {
    leg.to_device->make_current();
    GPUBENCH_CU(cuMemsetD8Async, leg.to, 0xA5, bytes, leg.to_device->stream());
    GPUBENCH_CU(cuStreamSynchronize, leg.to_device->stream());
  }

  std::vector<LaneSpec> lanes;
  for (const PeerLeg& leg : legs) {
    lanes.push_back({leg.runs_on->stream(), leg.runs_on->context()});
  }
  h.energy_per(EnergyPer::bytes(legs.size() * bytes), {&src, &dst});
  // Without peer access CUDA stages the copy through the host, which a gate would deadlock.
  const LoopTimes times = h.exec(
      GpuBatches{.ops = batch_copies(bytes),
                 .gated = access,
                 .lanes = lanes,
                 .label = access ? "" : "staged"},
      [&] {
        for (const PeerLeg& leg : legs) {
          copy(c.engine, leg, bytes);
        }
      });

  for (const PeerLeg& leg : legs) {
    GPUBENCH_CU(cuMemcpyDtoH, expected.readback->data(), leg.to, bytes);
    Harness::verify(compare_bytes(expected.readback->data(), expected.expected->data(), bytes,
                                  fmt::format("GPU{}", leg.to_device->device().ordinal).c_str()));
  }
  benchmark::State& state = h.state();
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(legs.size() * bytes));
  state.counters["us_per_copy"] = times.seconds_per_op * 1e6;
}

// What the peer family's flags choose.
struct PeerOptions {
  std::vector<std::int64_t> sizes; // bytes
};

void declare(Registry& registry, const PeerOptions& options) {
  const std::vector<int>& devices = registry.peer_devices();
  if (devices.size() < 2) {
    registry.note("peer/ce/read/0to1/4",
                  fmt::format("peer copies need two GPUs: {} found", devices.size()));
    return;
  }
  for (const PeerCase& c : cases) {
    for (const int source : devices) {
      for (const int destination : devices) {
        if (source == destination) {
          continue;
        }
        registry.add_across_devices(
            fmt::format("peer/{}/{}/{}to{}", c.engine_name, c.mode_name, source, destination),
            [&c, source, destination](Harness& h, std::int64_t bytes) {
              measure_peer(c, source, destination, h, static_cast<std::size_t>(bytes));
            },
            {options.sizes, ""});
      }
    }
  }
}

// The topology between the devices peer copies run on: one key per ordered pair.
ContextEntries topology_context(const Registry& registry) {
  const std::vector<int>& devices = registry.peer_devices();
  ContextEntries entries;
  if (devices.size() < 2) {
    return entries;
  }
  for (const PeerLink& link : peer_links(devices, session(devices.front()).nvml())) {
    entries.emplace_back(fmt::format("peer_{}to{}", link.source, link.destination),
                         format_peer_link(link));
  }
  return entries;
}

Family peer_family() {
  return {
      .name = "peer",
      .order = 40,
      .grammar = "peer/<engine>/<mode>/<source>to<destination>/<bytes>",
      .argument = Argument{.key = "", .unit = "bytes"},
      .figures = {{.counter = "bytes_per_second", .unit = "GB/s", .scale = 1e-9,
                   .better = Better::higher},
                  {.counter = "us_per_copy", .unit = "µs", .scale = 1.0, .better = Better::lower},
                  energy_figure(joules_per_gb), energy_above_idle_figure(joules_per_gb)},
      .kernels = {{"sm_copy", reinterpret_cast<const void*>(sm_copy)}},
      .flags = {sizes_flag()},
      .configure =
          [](const FlagValues& flags) {
            const PeerOptions options{.sizes = byte_size_args(flags.of(sizes_flag()))};
            return FamilyBenchmarks{.declare = [options](Registry& r) { declare(r, options); },
                                    .context = topology_context};
          },
  };
}

} // namespace

GPUBENCH_FAMILY(peer_family);

} // namespace gpubench::bench
