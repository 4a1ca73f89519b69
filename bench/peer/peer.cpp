// peer/<engine>/<mode>/<src>to<dst>/<bytes>: copies between two GPUs. Engine `ce`: the copy
// engines (cuMemcpyPeerAsync); `sm`: a kernel copying through the peer mapping. Mode `read`: the
// destination GPU's stream pulls; `write`: the source GPU's stream pushes; `bidir`: both GPUs
// push at once, released together, and the bandwidth is the sum. GPU time from events, every
// byte verified.
// peer/<engine>/<read|write>/<pattern>/<bytes>: a traffic pattern's copies at once (allto<d>,
// <s>toall, bisect: src/peer_patterns.hpp), each on a stream of its own and into a buffer of its
// own, all released together; the bandwidth is the sum.
// A pattern runs at the largest size. With more than two GPUs a run measures the size sweep for
// a few representative pairs and every other pair at the largest size, unless --sizes is named.
#include "byte_sizes.hpp"
#include "driver_api.hpp"
#include "family.hpp"
#include "harness.hpp"
#include "host_bytes.hpp"
#include "memory.hpp"
#include "peer_access.hpp"
#include "peer_buffers.hpp"
#include "peer_patterns.hpp"
#include "registry.hpp"
#include "sizes.hpp"
#include "sm_copy.cuh"
#include "sm_copy_launch.hpp"
#include "stream.hpp"
#include "topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

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

// One copy of an operation: from a source buffer to a destination buffer, made on `stream`, a
// stream of the device `runs_on`.
struct PeerLeg {
  CUdeviceptr from;
  Session* from_device;
  CUdeviceptr to;
  Session* to_device;
  Session* runs_on;
  CUstream stream;
};

// A device's streams beyond its session's own, for a pattern's copies made on that device at
// once: each copy on a stream of its own, so they run together.
struct PatternStreams {
  explicit PatternStreams(Session&) {}
  std::deque<Stream> streams;
};

// The `index`-th stream of `session` for a pattern's copies: its own stream first, then streams
// made for patterns, created in its context.
CUstream stream_of(Session& session, std::size_t index) {
  if (index == 0) {
    return session.stream();
  }
  auto& extra = session.state<PatternStreams>().streams;
  session.make_current();
  while (extra.size() < index) {
    extra.emplace_back();
  }
  return extra[index - 1].get();
}

// Copies per timed batch: about 1 GiB in flight, so a large copy is timed back to back with
// the next (a single copy's ramp-up and drain would otherwise count against the link), at most
// 64 so a gated stream stays far below its queue depth.
std::size_t batch_copies(std::size_t bytes) {
  return std::clamp<std::size_t>((std::size_t{1} << 30) / bytes, 1, 64);
}

PeerBuffers& buffers_on(Session& session, std::size_t bytes, const PeerExpected& expected) {
  session.make_current();
  auto& buffers = session.state<PeerBuffers>();
  buffers.ensure_capacity(bytes, expected);
  return buffers;
}

// The copies `pairs` make at once in `mode`: each pair, and for bidir each pair the other way too.
std::vector<PeerPair> copies_of(Mode mode, const std::vector<PeerPair>& pairs) {
  std::vector<PeerPair> copies;
  for (const PeerPair& pair : pairs) {
    copies.push_back(pair);
    if (mode == Mode::bidir) {
      copies.push_back({pair.destination, pair.source});
    }
  }
  return copies;
}

// Why `copies` of `bytes` cannot run here, if they cannot, before anything is allocated: the
// buffers they allocate on each GPU (buffers_to_allocate), and on the host the expected bytes and
// their readback within half the machine's memory.
std::optional<std::string> does_not_fit(Harness& h, const std::vector<PeerPair>& copies,
                                        std::size_t bytes, const PeerExpected& expected) {
  const auto holds_size = [&](int ordinal) {
    return bytes <= h.session_on(ordinal).state<PeerBuffers>().capacity.size();
  };
  for (const auto& [ordinal, buffers] : buffers_to_allocate(copies, holds_size)) {
    h.session_on(ordinal).make_current();
    const std::size_t free_bytes = free_device_bytes();
    if (bytes > free_bytes / buffers) {
      return fmt::format("{} peer copies need {} buffers of that size on GPU{}, {} is free",
                         format_size(bytes), buffers, ordinal, format_size(free_bytes));
    }
  }
  constexpr std::size_t host_buffers = 2;
  const std::size_t host_bytes = host_memory_bytes();
  if (bytes > expected.capacity.size() && bytes > host_bytes / 2 / host_buffers) {
    return fmt::format("{} peer copies need {} of host memory (the expected bytes and their "
                       "readback), more than half of the machine's {}",
                       format_size(bytes), format_size(host_buffers * bytes),
                       format_size(host_bytes));
  }
  return std::nullopt;
}

void copy(Engine engine, const PeerLeg& leg, std::size_t bytes) {
  if (engine == Engine::ce) {
    GPUBENCH_CU(cuMemcpyPeerAsync, leg.to, leg.to_device->context(), leg.from,
                leg.from_device->context(), bytes, leg.stream);
    return;
  }
  leg.runs_on->make_current();
  sm_copy_launch(leg.from, leg.to, bytes, leg.runs_on->device().sm_count, leg.stream);
}

// The legs of `copies` in `mode`: each from its source's buffer, into its destination's own
// buffer where it is the first copy to land there and into one made for it (kept in `extra`)
// where it is not, on the next stream of the device it runs on.
std::vector<PeerLeg> legs_of(Mode mode, const std::vector<PeerPair>& copies, Harness& h,
                             std::size_t bytes, const PeerExpected& expected,
                             std::deque<DeviceBuffer>& extra) {
  std::map<int, std::size_t> landed;
  std::map<int, std::size_t> streams;
  std::vector<PeerLeg> legs;
  for (const PeerPair& pair : copies) {
    Session& src = h.session_on(pair.source);
    Session& dst = h.session_on(pair.destination);
    const CUdeviceptr from = buffers_on(src, bytes, expected).source->ptr();
    CUdeviceptr to = buffers_on(dst, bytes, expected).destination->ptr();
    if (landed[pair.destination]++ > 0) {
      dst.make_current();
      to = extra.emplace_back(bytes).ptr();
    }
    // A read is made by the destination, a write (and each way of bidir) by the source.
    Session& runs_on = mode == Mode::read ? dst : src;
    const CUstream stream = stream_of(runs_on, streams[runs_on.device().ordinal]++);
    legs.push_back({from, &src, to, &dst, &runs_on, stream});
  }
  return legs;
}

void measure_peer(Engine engine, Mode mode, const std::vector<PeerPair>& pairs, Harness& h,
                  std::size_t bytes) {
  bool access = true;
  std::set<int> ordinals;
  for (const PeerPair& pair : pairs) {
    Session& src = h.session_on(pair.source);
    Session& dst = h.session_on(pair.destination);
    const bool pair_access = enable_peer_access(src, dst);
    if (engine == Engine::sm && !pair_access) {
      throw SkipBenchmark(fmt::format("an SM copy needs peer access, which GPU{} and GPU{} lack",
                                      pair.source, pair.destination));
    }
    access = access && pair_access;
    ordinals.insert({pair.source, pair.destination});
  }
  const std::vector<PeerPair> copies = copies_of(mode, pairs);
  auto& expected = h.session().state<PeerExpected>();
  if (const auto why = does_not_fit(h, copies, bytes, expected)) {
    throw SkipBenchmark(*why);
  }
  expected.ensure_capacity(bytes);
  std::deque<DeviceBuffer> extra;
  const std::vector<PeerLeg> legs = legs_of(mode, copies, h, bytes, expected, extra);
  for (const PeerLeg& leg : legs) {
    leg.to_device->make_current();
    GPUBENCH_CU(cuMemsetD8Async, leg.to, 0xA5, bytes, leg.to_device->stream());
    GPUBENCH_CU(cuStreamSynchronize, leg.to_device->stream());
  }

  std::vector<LaneSpec> lanes;
  for (const PeerLeg& leg : legs) {
    lanes.push_back({leg.stream, leg.runs_on->context()});
  }
  std::vector<Session*> devices;
  for (const int ordinal : ordinals) {
    devices.push_back(&h.session_on(ordinal));
  }
  h.runs_on(devices);
  h.energy_per(EnergyPer::bytes(legs.size() * bytes));
  // Without peer access CUDA stages the copy through the host, which a gate would deadlock.
  const LoopTimes times = h.exec(GpuBatches{.ops = batch_copies(bytes),
                                            .gated = access,
                                            .lanes = lanes,
                                            .label = access ? "" : "staged"},
                                 [&] {
                                   for (const PeerLeg& leg : legs) {
                                     copy(engine, leg, bytes);
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
  bool sizes_given = false;        // --sizes named: every pair at every size
};

void declare(Registry& registry, const PeerOptions& options) {
  const std::vector<int>& devices = registry.peer_devices();
  if (devices.size() < 2) {
    registry.note("peer/ce/read/0to1/4",
                  fmt::format("peer copies need two GPUs: {} found", devices.size()));
    return;
  }
  // The whole sweep where it stays short (two GPUs) or is asked for; the largest size elsewhere.
  const bool sweep_all = options.sizes_given || devices.size() <= 2;
  const std::vector<std::int64_t> largest{
      *std::max_element(options.sizes.begin(), options.sizes.end())};
  const std::vector<PeerPair> representative = representative_pairs(devices);
  for (const PeerCase& c : cases) {
    for (const int source : devices) {
      for (const int destination : devices) {
        if (source == destination) {
          continue;
        }
        const PeerPair pair{source, destination};
        const bool sweep = sweep_all || std::find(representative.begin(), representative.end(),
                                                  pair) != representative.end();
        registry.add_across_devices(
            fmt::format("peer/{}/{}/{}to{}", c.engine_name, c.mode_name, source, destination),
            [&c, pair](Harness& h, std::int64_t bytes) {
              measure_peer(c.engine, c.mode, {pair}, h, static_cast<std::size_t>(bytes));
            },
            {sweep ? options.sizes : largest, ""});
      }
    }
  }
  for (const PeerPattern& pattern : peer_patterns(devices)) {
    for (const PeerCase& c : cases) {
      if (c.mode == Mode::bidir) {
        continue; // a pattern names its directions
      }
      registry.add_across_devices(
          fmt::format("peer/{}/{}/{}", c.engine_name, c.mode_name, pattern.name),
          [&c, pairs = pattern.pairs](Harness& h, std::int64_t bytes) {
            measure_peer(c.engine, c.mode, pairs, h, static_cast<std::size_t>(bytes));
          },
          {largest, ""});
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
      .grammar = "peer/<engine>/<mode>/<source>to<destination>/<bytes>, "
                 "peer/<engine>/<read|write>/<allto<d>|<s>toall|bisect>/<bytes>",
      .argument = Argument{.key = "", .unit = "bytes"},
      .figures =
          {{.counter = "bytes_per_second", .unit = "GB/s", .scale = 1e-9, .better = Better::higher},
           {.counter = "us_per_copy", .unit = "µs", .scale = 1.0, .better = Better::lower},
           energy_figure(joules_per_gb),
           energy_above_idle_figure(joules_per_gb)},
      .kernels = {{"sm_copy", reinterpret_cast<const void*>(sm_copy)}},
      .flags = {sizes_flag()},
      .configure =
          [](const FlagValues& flags) {
            const PeerOptions options{.sizes = byte_size_args(flags.of(sizes_flag())),
                                      .sizes_given = flags.given(sizes_flag())};
            return FamilyBenchmarks{.declare = [options](Registry& r) { declare(r, options); },
                                    .context = topology_context};
          },
  };
}

} // namespace

GPUBENCH_FAMILY(peer_family);

} // namespace gpubench::bench
