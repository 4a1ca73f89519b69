// batch/<direction>/<api>/pieces:<n>/<piece bytes>: many small copies. A batch is n pieces of
// one size, scattered on both sides (piece_layout.hpp: a random choice and order of slots in a
// region twice the pieces' size, so no two pieces need be neighbours), moved host to device from
// pinned memory (HtoD) or device to host into it (DtoH), in three ways:
//
//   memcpy_loop    a cudaMemcpyAsync per piece: what a program without the batch API writes
//   memcpy_batch   one cudaMemcpyBatchAsync of every piece (CUDA 12.8+): skipped, with the
//                  versions it found, where the runtime or the driver is older
//   gather_kernel  one kernel whose threads move every piece across PCIe themselves, reading or
//                  writing the mapped pinned region (zero-copy): the one-launch alternative
//
// A family of its own, not a copy/ case: its argument is one piece's size, not a copy's, and
// the piece count is a component of each series' name (pieces:<n>, as launch/graph_nodes names
// nodes:<n>), so a plot draws each way and count against the piece size: where batching pays.
//
// GPU time from events around batches queued behind a StreamGate, as copy's async copies are
// timed. A gated stream holds what is queued until its release, and a stream's queue holds
// about a thousand entries: a batch of pieces whose calls queue more than 256 (a loop, or one
// batch API call, of more than 256 pieces; the batch API is counted as its copies, since nothing
// documents how the driver queues them) runs ungated, the events bracketing the pieces as the
// host queues them. Its figure then holds the host's submission, it is marked host_timed and
// labelled not_gated; the piece count is in the name, so each series is timed one way
// throughout.
//
// Figures: bytes_per_second (n x the piece size a second) and us_per_batch (moving all n pieces
// once). Verified after the timed loop: every piece's bytes in its destination slot, and every
// other byte of the destination region (the unused slots, each slot past its piece) still the
// poison it held before the loop.
#include "batch_buffers.hpp"
#include "byte_sizes.hpp"
#include "driver_api.hpp"
#include "family.hpp"
#include "gather_pieces.cuh"
#include "harness.hpp"
#include "host_bytes.hpp"
#include "options.hpp"
#include "piece_copies.hpp"
#include "piece_layout.hpp"
#include "registry.hpp"
#include "room.hpp"
#include "sizes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpubench::bench {
namespace {

constexpr unsigned char poison_byte = 0xA5;
constexpr std::uint64_t layout_seed = 0x51EC35;

// The most entries a gated batch queues: what launch/gpu_gap holds behind a gate, a quarter of
// a stream's queue.
constexpr std::size_t gated_queue_entries = 256;

// Batches of pieces per timed batch: about 64 MiB in flight so small batches are not lost in
// event resolution, at most 64, and no more entries queued than a gate may hold.
std::size_t batches_per_timed_batch(std::size_t bytes, std::size_t queued) {
  return std::clamp<std::size_t>(
      std::min((std::size_t{64} << 20) / bytes, gated_queue_entries / queued), 1, 64);
}

void measure_batch(const PieceCopy& how, bool to_device, std::size_t pieces, Harness& h,
                   std::size_t piece_bytes) {
  if (const auto why = how.unavailable()) {
    throw SkipBenchmark(*why);
  }
  const auto region = piece_region_bytes(pieces, piece_bytes);
  if (!region) {
    throw SkipBenchmark(fmt::format("{} pieces of {} have no region that fits in memory's "
                                    "addresses",
                                    pieces, format_size(piece_bytes)));
  }
  Session& session = h.session();
  auto& buffers = session.state<BatchBuffers>();
  // Two device regions (the source's expected bytes and a destination); on the host the
  // expected bytes, the pinned region and a readback.
  if (const auto why = room_for(fmt::format("{} pieces of {} in regions of {}", pieces,
                                            format_size(piece_bytes), format_size(*region)),
                                *region, buffers.capacity.size(), {.device = 2, .host = 3})) {
    throw SkipBenchmark(*why);
  }
  buffers.ensure_capacity(*region);
  const PieceLayout layout = make_piece_layout(pieces, piece_bytes, layout_seed);
  const CUstream stream = h.stream();
  PieceEnds ends{};
  if (to_device) {
    ends = {buffers.host->data(), buffers.device_destination->as<void>(),
            buffers.host->device_ptr(), buffers.device_destination->ptr(), cudaMemcpyHostToDevice};
    parallel_copy(buffers.host->data(), buffers.expected->data(), *region);
    GPUBENCH_CU(cuMemsetD8Async, buffers.device_destination->ptr(), poison_byte, *region, stream);
  } else {
    ends = {buffers.device_source->as<void>(), buffers.host->data(), buffers.device_source->ptr(),
            buffers.host->device_ptr(), cudaMemcpyDeviceToHost};
    parallel_fill(buffers.host->data(), poison_byte, *region);
  }
  const auto operation = how.prepare(layout, ends, session.device().sm_count);
  GPUBENCH_CU(cuCtxSynchronize);

  const bool gated = how.queued(pieces) <= gated_queue_entries;
  h.energy_per(EnergyPer::bytes(layout.bytes()));
  const LoopTimes times =
      h.exec(GpuBatches{.ops = batches_per_timed_batch(layout.bytes(), how.queued(pieces)),
                        .gated = gated,
                        .host_paced = !gated,
                        .label = gated ? "" : "not_gated"},
             [&] { operation->enqueue(stream); });

  GPUBENCH_CU(cuCtxSynchronize);
  const std::byte* destination = buffers.host->data();
  if (to_device) {
    GPUBENCH_CU(cuMemcpyDtoH, buffers.readback->data(), buffers.device_destination->ptr(), *region);
    destination = buffers.readback->data();
  }
  Harness::verify(pieces_mismatch(layout, buffers.expected->data(), destination, poison_byte,
                                  to_device ? "device" : "host"));
  benchmark::State& state = h.state();
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(layout.bytes()));
  state.counters["us_per_batch"] = times.seconds_per_op * 1e6;
}

constexpr std::string_view pieces_name = "--batch-pieces";
constexpr std::string_view piece_sizes_name = "--batch-piece-sizes";

// A list of piece counts, read as sizes are (4K is 4096 pieces); throws UsageError naming the
// flag for a count past max_pieces.
std::vector<std::int64_t> piece_counts(std::string_view value) {
  std::vector<std::int64_t> counts = byte_size_args(value, pieces_name);
  for (const std::int64_t count : counts) {
    if (static_cast<std::size_t>(count) > max_pieces) {
      throw UsageError(fmt::format("{}={}: {} pieces is more than the {} a batch holds",
                                   pieces_name, value, count, max_pieces));
    }
  }
  return counts;
}

FamilyFlag pieces_flag() {
  return {std::string(pieces_name), "16,256,4096",
          "batch piece counts: a list or ranges, e.g. 16,256,4096 or 16..4096:x4",
          [](std::string_view value) { static_cast<void>(piece_counts(value)); }};
}

FamilyFlag piece_sizes_flag() {
  return {
      std::string(piece_sizes_name), "4,1K,64K",
      "batch piece sizes: a list or ranges, e.g. 4,1K,64K or 4..64K:x4",
      [](std::string_view value) { static_cast<void>(byte_size_args(value, piece_sizes_name)); }};
}

// What the batch family's flags choose.
struct BatchOptions {
  std::vector<std::int64_t> pieces;      // per batch
  std::vector<std::int64_t> piece_sizes; // bytes
};

void declare(Registry& registry, const BatchOptions& options) {
  for (const bool to_device : {true, false}) {
    for (const auto& how : piece_copies()) {
      for (const std::int64_t pieces : options.pieces) {
        registry.add(
            fmt::format("batch/{}/{}/pieces:{}", to_device ? "HtoD" : "DtoH", how->name(), pieces),
            [&how = *how, to_device, pieces](Harness& h, std::int64_t piece_bytes) {
              measure_batch(how, to_device, static_cast<std::size_t>(pieces), h,
                            static_cast<std::size_t>(piece_bytes));
            },
            {options.piece_sizes, ""});
      }
    }
  }
}

Family batch_family() {
  return {
      .name = "batch",
      .order = 32,
      .grammar = "batch/<direction>/<api>/pieces:<n>/<piece bytes>",
      .argument = Argument{.key = "", .unit = "bytes"},
      .figures =
          {{.counter = "bytes_per_second", .unit = "GB/s", .scale = 1e-9, .better = Better::higher},
           {.counter = "us_per_batch", .unit = "µs", .scale = 1.0, .better = Better::lower},
           energy_figure(joules_per_gb),
           energy_above_idle_figure(joules_per_gb)},
      .kernels = {{"gather_pieces_16", reinterpret_cast<const void*>(gather_pieces_16)},
                  {"gather_pieces_4", reinterpret_cast<const void*>(gather_pieces_4)},
                  {"gather_pieces_1", reinterpret_cast<const void*>(gather_pieces_1)}},
      .flags = {pieces_flag(), piece_sizes_flag()},
      .configure =
          [](const FlagValues& flags) {
            const BatchOptions options{
                .pieces = piece_counts(flags.of(pieces_flag())),
                .piece_sizes = byte_size_args(flags.of(piece_sizes_flag()), piece_sizes_name)};
            return FamilyBenchmarks{.declare = [options](Registry& r) { declare(r, options); }};
          },
  };
}

} // namespace

GPUBENCH_FAMILY(batch_family);

} // namespace gpubench::bench
