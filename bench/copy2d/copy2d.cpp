// copy2d/<direction>/<api>/<pitch>/rows:<n>/<row bytes>: strided copies. A tile of n rows of
// <row bytes>, each row `pitch` bytes after the last, the same rectangle of two 2D arrays laid
// out alike (tile_pitch.hpp), host to device from pinned memory (HtoD) or device to host into it
// (DtoH), through
//
//   runtime  cudaMemcpy2DAsync
//   driver   cuMemcpy2DAsync
//
// at two pitches: pitch512, the smallest multiple of 512 bytes past the row, and pitch_odd, one
// byte more, a multiple of nothing, so successive rows start at every alignment.
//
// A family of its own, not a copy/ case: its argument is one row's size, and its tiles' shape
// (the row count, rows:<n>, and the pitch) is part of each series' name. Each benchmark is read
// against a contiguous copy of the same bytes between the same regions (contiguous_rate.hpp),
// measured once per direction and size in the process, as saxpy reads its kernels against a
// copy measured in the process: pct_of_contiguous is the 2D copy's rate as a share of it (what a
// pitch costs), contiguous_bytes_per_second the reference itself.
//
// GPU time from events around batches queued behind a StreamGate, as copy's async copies are
// timed. Verified after the timed loop: every row's bytes at its place, and every gap after a
// row still the poison it held before the loop.
#include "byte_sizes.hpp"
#include "contiguous_rate.hpp"
#include "cuda_error.hpp"
#include "driver_api.hpp"
#include "family.hpp"
#include "harness.hpp"
#include "host_bytes.hpp"
#include "memory.hpp"
#include "registry.hpp"
#include "sizes.hpp"
#include "tile_buffers.hpp"
#include "tile_pitch.hpp"

#include <cuda_runtime_api.h>
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

// The two regions of a copy: the pinned host region and the device one, and which way it goes.
struct TileEnds {
  std::byte* host;
  const DeviceBuffer* device;
  bool to_device;
};

// One 2D copy API, the <api> of the names.
struct Copy2dApi {
  const char* name;
  void (*copy)(const Tile& tile, const TileEnds& ends, CUstream stream);
};

void copy_runtime(const Tile& t, const TileEnds& ends, CUstream stream) {
  void* const device = ends.device->as<void>();
  if (ends.to_device) {
    GPUBENCH_CUDART(cudaMemcpy2DAsync(device, t.pitch, ends.host, t.pitch, t.width, t.rows,
                                      cudaMemcpyHostToDevice, stream));
  } else {
    GPUBENCH_CUDART(cudaMemcpy2DAsync(ends.host, t.pitch, device, t.pitch, t.width, t.rows,
                                      cudaMemcpyDeviceToHost, stream));
  }
}

void copy_driver(const Tile& t, const TileEnds& ends, CUstream stream) {
  CUDA_MEMCPY2D copy{};
  if (ends.to_device) {
    copy.srcMemoryType = CU_MEMORYTYPE_HOST;
    copy.srcHost = ends.host;
    copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.dstDevice = ends.device->ptr();
  } else {
    copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.srcDevice = ends.device->ptr();
    copy.dstMemoryType = CU_MEMORYTYPE_HOST;
    copy.dstHost = ends.host;
  }
  copy.srcPitch = t.pitch;
  copy.dstPitch = t.pitch;
  copy.WidthInBytes = t.width;
  copy.Height = t.rows;
  GPUBENCH_CU(cuMemcpy2DAsync, &copy, stream);
}

const Copy2dApi apis[] = {{"runtime", copy_runtime}, {"driver", copy_driver}};

// Copies per timed batch: about 64 MiB in flight so small tiles are not lost in event
// resolution, at most 64 so a gated stream stays far below its queue depth.
std::size_t batch_copies(std::size_t bytes) {
  return std::clamp<std::size_t>((std::size_t{64} << 20) / bytes, 1, 64);
}

// Why a tile whose regions are `region` bytes each cannot run here, if it cannot: two device
// regions (the source's expected bytes and a destination), and on the host the expected bytes,
// the pinned region and a readback, in at most half the host's memory; a pitch past what the
// device's copies take. Regions held for `held_bytes` are freed before larger ones are made.
std::optional<std::string> does_not_fit(const Tile& tile, std::size_t held_bytes, int ordinal) {
  int max_pitch = 0;
  GPUBENCH_CUDART(cudaDeviceGetAttribute(&max_pitch, cudaDevAttrMaxPitch, ordinal));
  if (tile.pitch > static_cast<std::size_t>(max_pitch)) {
    return fmt::format("a pitch of {} bytes is past the {} the device's copies take", tile.pitch,
                       max_pitch);
  }
  const std::size_t region = tile.region_bytes();
  if (region <= held_bytes) {
    return std::nullopt;
  }
  const std::size_t free_bytes = free_device_bytes() + 2 * held_bytes;
  if (region > free_bytes / 2) {
    return fmt::format("its regions of {} need twice that of device memory, {} is free",
                       format_size(region), format_size(free_bytes));
  }
  const std::size_t host_bytes = host_memory_bytes();
  if (region > host_bytes / 2 / 3) {
    return fmt::format("its regions of {} need three times that of host memory, at most half "
                       "the machine's {}",
                       format_size(region), format_size(host_bytes));
  }
  return std::nullopt;
}

void measure_tile(const Copy2dApi& api, bool to_device, PitchKind pitch, std::size_t rows,
                  Harness& h, std::size_t width) {
  const std::optional<Tile> tile = make_tile(width, rows, pitch);
  if (!tile) {
    throw SkipBenchmark(fmt::format("{} rows of {} at {} have no region that fits in memory's "
                                    "addresses",
                                    rows, format_size(width), pitch_name(pitch)));
  }
  Session& session = h.session();
  auto& buffers = session.state<TileBuffers>();
  if (const auto why = does_not_fit(*tile, buffers.capacity.size(), session.device().ordinal)) {
    throw SkipBenchmark(fmt::format("{} rows of {} at a pitch of {}: {}", rows, format_size(width),
                                    tile->pitch, *why));
  }
  const std::size_t region = tile->region_bytes();
  buffers.ensure_capacity(region);
  const CUstream stream = h.stream();
  if (to_device) {
    parallel_copy(buffers.host->data(), buffers.expected->data(), region);
  }
  const double contiguous =
      session.state<ContiguousRates>().bytes_per_second(to_device, tile->bytes(), buffers);
  const TileEnds ends{buffers.host->data(),
                      to_device ? &*buffers.device_destination : &*buffers.device_source,
                      to_device};
  if (to_device) {
    GPUBENCH_CU(cuMemsetD8Async, buffers.device_destination->ptr(), poison_byte, region, stream);
  } else {
    parallel_fill(buffers.host->data(), poison_byte, region);
  }
  GPUBENCH_CU(cuCtxSynchronize);

  h.energy_per(EnergyPer::bytes(tile->bytes()));
  const LoopTimes times = h.exec(GpuBatches{.ops = batch_copies(tile->bytes())},
                                 [&] { api.copy(*tile, ends, stream); });

  GPUBENCH_CU(cuCtxSynchronize);
  const std::byte* destination = buffers.host->data();
  if (to_device) {
    GPUBENCH_CU(cuMemcpyDtoH, buffers.readback->data(), buffers.device_destination->ptr(), region);
    destination = buffers.readback->data();
  }
  Harness::verify(tile_mismatch(*tile, buffers.expected->data(), destination, poison_byte,
                                to_device ? "device" : "host"));
  benchmark::State& state = h.state();
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(tile->bytes()));
  state.counters["us_per_copy"] = times.seconds_per_op * 1e6;
  const double bytes_per_second = static_cast<double>(tile->bytes()) / times.seconds_per_op;
  state.counters["pct_of_contiguous"] = 100.0 * bytes_per_second / contiguous;
  state.counters["contiguous_bytes_per_second"] = contiguous;
}

constexpr std::string_view rows_name = "--copy2d-rows";
constexpr std::string_view row_sizes_name = "--copy2d-row-sizes";

FamilyFlag rows_flag() {
  return {std::string(rows_name), "1024",
          "copy2d row counts per tile: a list or ranges, e.g. 1024 or 64..4096:x4",
          [](std::string_view value) { static_cast<void>(byte_size_args(value, rows_name)); }};
}

FamilyFlag row_sizes_flag() {
  return {std::string(row_sizes_name), "4,1K,64K",
          "copy2d row sizes: a list or ranges, e.g. 4,1K,64K or 4..64K:x4",
          [](std::string_view value) { static_cast<void>(byte_size_args(value, row_sizes_name)); }};
}

// What the copy2d family's flags choose.
struct Copy2dOptions {
  std::vector<std::int64_t> rows;      // per tile
  std::vector<std::int64_t> row_sizes; // bytes
};

void declare(Registry& registry, const Copy2dOptions& options) {
  for (const bool to_device : {true, false}) {
    for (const Copy2dApi& api : apis) {
      for (const PitchKind pitch : {PitchKind::aligned, PitchKind::odd}) {
        for (const std::int64_t rows : options.rows) {
          registry.add(fmt::format("copy2d/{}/{}/{}/rows:{}", to_device ? "HtoD" : "DtoH", api.name,
                                   pitch_name(pitch), rows),
                       [&api, to_device, pitch, rows](Harness& h, std::int64_t width) {
                         measure_tile(api, to_device, pitch, static_cast<std::size_t>(rows), h,
                                      static_cast<std::size_t>(width));
                       },
                       {options.row_sizes, ""});
        }
      }
    }
  }
}

Family copy2d_family() {
  return {
      .name = "copy2d",
      .order = 31,
      .grammar = "copy2d/<direction>/<api>/<pitch>/rows:<n>/<row bytes>",
      .argument = Argument{.key = "", .unit = "bytes"},
      .figures =
          {{.counter = "bytes_per_second", .unit = "GB/s", .scale = 1e-9, .better = Better::higher},
           {.counter = "us_per_copy", .unit = "µs", .scale = 1.0, .better = Better::lower},
           {.counter = "pct_of_contiguous",
            .unit = "% of contiguous",
            .scale = 1.0,
            .better = Better::higher,
            .panel = true},
           energy_figure(joules_per_gb),
           energy_above_idle_figure(joules_per_gb)},
      .kernels = {},
      .flags = {rows_flag(), row_sizes_flag()},
      .configure =
          [](const FlagValues& flags) {
            const Copy2dOptions options{
                .rows = byte_size_args(flags.of(rows_flag()), rows_name),
                .row_sizes = byte_size_args(flags.of(row_sizes_flag()), row_sizes_name)};
            return FamilyBenchmarks{.declare = [options](Registry& r) { declare(r, options); }};
          },
  };
}

} // namespace

GPUBENCH_FAMILY(copy2d_family);

} // namespace gpubench::bench
