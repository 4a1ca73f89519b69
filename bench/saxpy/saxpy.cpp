// saxpy/<variant>/<N>: y = alpha*x + y, every way a user would run it, against the memory
// ceiling. GPU time from events (UseManualTime); 12 bytes per element (read x, read y, write y).
#include "capacity.hpp"
#include "cublas_library.hpp"
#include "driver_api.hpp"
#include "embedded_images.hpp"
#include "family.hpp"
#include "harness.hpp"
#include "memory_ceiling.hpp"
#include "memory.hpp"
#include "module.hpp"
#include "options.hpp"
#include "parallel.hpp"
#include "random_fill.hpp"
#include "registry.hpp"
#include "saxpy.cuh"
#include "saxpy_launchers.hpp"
#include "saxpy_reference.hpp"
#include "sizes.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace gpubench::bench {
namespace {

constexpr std::size_t bytes_per_element = 3 * sizeof(float);
constexpr int block_threads = 256;
constexpr std::uint64_t x_seed = 0x5A5A0001;
constexpr std::uint64_t y_seed = 0x5A5A0002;

// Whether timed launches start with a cold L2 (flushed) or a warm one: --l2=cold|warm.
enum class L2Mode { cold, warm };

const char* to_string(L2Mode mode) { return mode == L2Mode::cold ? "cold" : "warm"; }

L2Mode parse_l2(std::string_view value) {
  if (value == "cold") {
    return L2Mode::cold;
  }
  if (value == "warm") {
    return L2Mode::warm;
  }
  throw UsageError(fmt::format("--l2={}: expected cold or warm", value));
}

FamilyFlag l2_flag() {
  return {"--l2", "cold", "saxpy: cold flushes the L2 before each timed launch, warm does not",
          [](std::string_view value) { static_cast<void>(parse_l2(value)); }};
}

// What the saxpy family's flags choose.
struct SaxpyOptions {
  L2Mode l2 = L2Mode::cold;
};

// Floats per piece in which the inputs are made and go up, and y comes back to be checked:
// 64 MiB, 1.2 ms over PCIe at 55 GB/s. The host holds three pieces, 192 MiB, whatever N; the
// inputs and reference of 2^30 elements whole would take 12 GiB of it.
constexpr std::size_t piece_floats = std::size_t{1} << 24;

// The family's state, kept across Google Benchmark's runs: random inputs on the device for the
// largest N asked for so far (smaller N use a prefix), one saxpy's CPU reference on the device
// where it fits, the walk-through's module, and cuBLAS once a cuBLAS benchmark has run. The host
// keeps no copy of the inputs: fill_random gives any piece of them again from its seed.
struct SaxpyState {
  explicit SaxpyState(Session& session)
      : module(saxpy_fatbin().data()), driver_saxpy(module.function("saxpy")),
        l2_bytes(static_cast<std::size_t>(session.device().l2_bytes)) {
    vec4_grid = session.device().sm_count * saxpy_vec4_blocks_per_sm(block_threads);
    float a = 0.0F;
    fill_random(std::span(&a, 1), 0x5A5A0003);
    alpha = 1.0F + a; // in [0, 2): random, never 0 (fill_random never yields -1 exactly)
  }

  void ensure_capacity(std::size_t n) {
    capacity.ensure(n, [this](std::size_t size) {
      staging.reset();
      expected.reset();
      dx.reset();
      dy.reset();
      dy0.reset();
      dx.emplace(size * sizeof(float));
      dy.emplace(size * sizeof(float));
      dy0.emplace(size * sizeof(float));
      piece = std::min(size, piece_floats);
      staging.emplace(3 * piece * sizeof(float));
      // The reference only where it fits beside x, y and y's initial values, with room to spare;
      // elsewhere the check runs on the host.
      constexpr std::size_t spare_bytes = std::size_t{256} << 20;
      if (free_device_bytes() >= size * sizeof(float) + spare_bytes) {
        expected.emplace(size * sizeof(float));
      }
      for (std::size_t first = 0; first < size; first += piece) {
        upload_piece(first, std::min(piece, size - first));
      }
    });
  }

  // Elements [first, first + count) of x and of y's initial values, made in the staging buffer.
  void make_inputs(std::size_t first, std::size_t count) {
    fill_random(x_piece().first(count), x_seed, first);
    fill_random(y0_piece().first(count), y_seed, first);
  }

  // One piece of the inputs, and of one saxpy of them computed by the CPU (saxpy_reference)
  // where it is kept on the device, so checking a run of one application is a comparison on
  // the device, not N floats back over PCIe and through the host's memory on every Google
  // Benchmark run.
  void upload_piece(std::size_t first, std::size_t count) {
    make_inputs(first, count);
    const std::size_t bytes = count * sizeof(float);
    const std::size_t offset = first * sizeof(float);
    upload(dx->ptr() + offset, x_piece().data(), bytes);
    upload(dy0->ptr() + offset, y0_piece().data(), bytes);
    if (!expected) {
      return;
    }
    const std::span<const float> xs = x_piece();
    const std::span<const float> y0s = y0_piece();
    const std::span<float> reference = y_piece();
    parallel_chunks(count, [&](std::size_t begin, std::size_t end) {
      const std::size_t length = end - begin;
      std::ranges::copy(y0s.subspan(begin, length), reference.subspan(begin, length).begin());
      saxpy_reference(alpha, xs.subspan(begin, length), reference.subspan(begin, length));
    });
    upload(expected->ptr() + offset, reference.data(), bytes);
  }

  // The staging buffer's three pieces: x, y's initial values, and the reference on its way up
  // or y on its way back.
  [[nodiscard]] std::span<float> x_piece() { return staged(0); }
  [[nodiscard]] std::span<float> y0_piece() { return staged(1); }
  [[nodiscard]] std::span<float> y_piece() { return staged(2); }

  // cuBLAS's library is loaded here, by the first benchmark that calls it (cublas_library.hpp
  // says why not at start); where it cannot be, that benchmark is skipped with the loader's
  // reason and the run goes on.
  const CublasHandle& cublas() {
    if (!cublas_handle) {
      if (!cublas_library) {
        try {
          cublas_library.emplace();
        } catch (const LibraryUnavailable& why) {
          throw SkipBenchmark(fmt::format("cuBLAS cannot be loaded: {}", why.what()));
        }
      }
      cublas_handle.emplace(*cublas_library);
    }
    return *cublas_handle;
  }

  Module module;
  CUfunction driver_saxpy;
  std::size_t l2_bytes;
  int vec4_grid = 0;
  float alpha = 0.0F;
  Capacity capacity;     // elements
  std::size_t piece = 0; // floats in each of the staging buffer's pieces
  // Pinned: uploads and readbacks run at full speed, and with the host buffer that y came back
  // through pageable, small flushed saxpy sat at another level (4096 elements 10% slower, 16384
  // 10% faster) in 10 of 14 processes, pinned in none of 34
  // (results/h200/speed/saxpy_host_setup/).
  std::optional<PinnedHostBuffer> staging;
  std::optional<DeviceBuffer> dx;
  std::optional<DeviceBuffer> dy;
  std::optional<DeviceBuffer> dy0;      // y's initial values, to restore y on the device
  std::optional<DeviceBuffer> expected; // fmaf(alpha, x, y0) from the CPU, where it fits
  // Declared before the handle, so that it outlives it.
  std::optional<CublasLibrary> cublas_library;
  std::optional<CublasHandle> cublas_handle;

private:
  [[nodiscard]] std::span<float> staged(std::size_t which) {
    return {reinterpret_cast<float*>(staging->data()) + which * piece, piece};
  }
};

// One launch of the computation on `stream`, as a variant does it.
struct SaxpyCall {
  SaxpyState& s;
  CUstream stream;
  std::size_t n;
  [[nodiscard]] float* x() const { return s.dx->as<float>(); }
  [[nodiscard]] float* y() const { return s.dy->as<float>(); }
  [[nodiscard]] unsigned int grid() const {
    return static_cast<unsigned int>((n + block_threads - 1) / block_threads);
  }
};

void launch_driver(const SaxpyCall& c) {
  float alpha = c.s.alpha;
  CUdeviceptr x = c.s.dx->ptr();
  CUdeviceptr y = c.s.dy->ptr();
  auto n = static_cast<std::int32_t>(c.n);
  void* params[] = {&alpha, &x, &y, &n};
  GPUBENCH_CU(cuLaunchKernel, c.s.driver_saxpy, c.grid(), 1, 1, block_threads, 1, 1, 0, c.stream,
              params, nullptr);
}

void launch_runtime(const SaxpyCall& c) {
  launch_saxpy_runtime(c.grid(), block_threads, c.stream, c.s.alpha, c.x(), c.y(),
                       static_cast<std::int32_t>(c.n));
}

void launch_vec4(const SaxpyCall& c) {
  // A full grid for small N would launch hundreds of idle blocks: size it to the work when less.
  const auto needed = static_cast<int>((c.n / 4 + block_threads - 1) / block_threads);
  launch_saxpy_vec4(std::max(1, std::min(c.s.vec4_grid, needed)), block_threads, c.stream,
                    c.s.alpha, c.x(), c.y(), static_cast<std::int64_t>(c.n));
}

void launch_cublas(const SaxpyCall& c) {
  const CublasHandle& cublas = c.s.cublas();
  cublas.library().saxpy(cublas.get(), static_cast<int>(c.n), c.s.alpha, c.x(), c.y());
}

void launch_thrust(const SaxpyCall& c) { thrust_saxpy(c.stream, c.s.alpha, c.x(), c.y(), c.n); }

void launch_vec4_tile(const SaxpyCall& c) {
  launch_saxpy_vec4_tile(TileCaching::plain, c.stream, c.s.alpha, c.x(), c.y(),
                         static_cast<std::int64_t>(c.n));
}

void launch_vec4_tile_streaming(const SaxpyCall& c) {
  launch_saxpy_vec4_tile(TileCaching::streaming, c.stream, c.s.alpha, c.x(), c.y(),
                         static_cast<std::int64_t>(c.n));
}

struct Variant {
  const char* name;
  void (*launch)(const SaxpyCall&);
  bool graph = false; // a whole timed batch of `launch` captured into a CUDA graph, replayed
};

// The walk-through's kernel stays one element per thread and int32 N, as it was written.
// vec4_tile and vec4_tile_streaming run last: the variants before them run in the same order
// and conditions whether they are there or not.
const Variant variants[] = {
    {"driver", launch_driver},       {"runtime", launch_runtime},
    {"vec4", launch_vec4},           {"cublas", launch_cublas},
    {"thrust", launch_thrust},       {"graph", launch_driver, true},
    {"vec4_tile", launch_vec4_tile}, {"vec4_tile_streaming", launch_vec4_tile_streaming},
};

// Gated batches: enough launches per timed batch that event resolution and gaps do not
// dominate small N, few enough to stay far below the stream's queue depth.
std::size_t batch_launches(std::size_t n) {
  return std::clamp<std::size_t>((std::size_t{1} << 22) / n, 1, 64);
}


// The first element where y differs from `applications` saxpys of the inputs, if one does. One
// application with the reference on the device is compared there; otherwise y comes back a
// piece at a time and the CPU computes and compares (find_saxpy_mismatch).
std::optional<SaxpyMismatch> find_mismatch(SaxpyState& s, CUstream stream, std::size_t n,
                                           std::size_t applications) {
  if (applications == 1 && s.expected) {
    const std::size_t i =
        first_mismatch_on_device(stream, s.expected->as<float>(), s.dy->as<float>(), n);
    if (i >= n) {
      return std::nullopt;
    }
    float actual = 0.0F;
    GPUBENCH_CU(cuMemcpyDtoH, &actual, s.dy->ptr() + i * sizeof(float), sizeof(float));
    float x = 0.0F;
    float y0 = 0.0F;
    fill_random(std::span(&x, 1), x_seed, i);
    fill_random(std::span(&y0, 1), y_seed, i);
    return SaxpyMismatch{i, std::fmaf(s.alpha, x, y0), actual};
  }
  for (std::size_t first = 0; first < n; first += s.piece) {
    const std::size_t count = std::min(s.piece, n - first);
    GPUBENCH_CU(cuMemcpyDtoHAsync, s.y_piece().data(), s.dy->ptr() + first * sizeof(float),
                count * sizeof(float), stream);
    GPUBENCH_CU(cuStreamSynchronize, stream);
    s.make_inputs(first, count);
    if (auto mismatch =
            find_saxpy_mismatch(s.alpha, s.x_piece().first(count), s.y0_piece().first(count),
                                s.y_piece().first(count), applications)) {
      mismatch->index += first;
      return mismatch;
    }
  }
  return std::nullopt;
}

// Why N cannot run here (x, y and y's initial values must fit in device memory), if it cannot.
std::optional<std::string> does_not_fit(std::size_t n) {
  const std::size_t needed = 3 * n * sizeof(float);
  const std::size_t free_bytes = free_device_bytes();
  if (needed <= free_bytes) {
    return std::nullopt;
  }
  return fmt::format("N = {} needs {} of device memory, {} is free", n, format_size(needed),
                     format_size(free_bytes));
}

void measure_saxpy(const Variant& variant, const SaxpyOptions& options, Harness& h, std::size_t n) {
  if (const auto why = does_not_fit(n)) {
    throw SkipBenchmark(*why);
  }
  auto& s = h.session().state<SaxpyState>();
  const CUstream stream = h.stream();
  // Before the inputs: a host without cuBLAS skips without allocating GiBs it would not use.
  if (variant.launch == launch_cublas) {
    const CublasHandle& cublas = s.cublas();
    cublas.library().set_stream(cublas.get(), stream);
  }
  s.ensure_capacity(n);
  GPUBENCH_CU(cuMemcpyDtoDAsync, s.dy->ptr(), s.dy0->ptr(), n * sizeof(float), stream);
  const SaxpyCall call{s, stream, n};
  const auto launch = [&] { variant.launch(call); };

  // Cold L2: flush before each launch while the working set (x and y) could still sit in L2.
  // The graph variant captures a whole timed batch (flushes and event records included) and
  // replays it, so its kernels are launched from the graph and timed as the others are.
  const bool flush = options.l2 == L2Mode::cold && n * 2 * sizeof(float) < 4 * s.l2_bytes;
  // Flushed launches keep the same batches: queued 64 deep regardless of N, a launch starts right
  // behind its flush while the flush's dirty lines still drain, and saxpy at 2^20 measured 10%
  // slower on the H200 (results/h200/comparison/old_vs_new.txt).
  const std::size_t batch = batch_launches(n);
  const std::size_t graph_ops = variant.graph ? batch : 0;
  h.energy_per(EnergyPer::bytes(n * bytes_per_element));
  const LoopTimes times =
      flush ? h.exec(FlushedOps{.ops = batch, .graph_ops = graph_ops, .label = "l2_flushed"},
                     launch)
            : h.exec(GpuBatches{.ops = batch, .graph_ops = graph_ops, .label = "l2_not_flushed"},
                     launch);

  // Verify one run as timed (a graph replay applies the whole batch) from fresh inputs against
  // the CPU reference, element for element.
  GPUBENCH_CU(cuMemcpyDtoDAsync, s.dy->ptr(), s.dy0->ptr(), n * sizeof(float), stream);
  const std::size_t applications = h.run_once();
  if (const auto mismatch = find_mismatch(s, stream, n, applications)) {
    throw VerificationFailure(describe(*mismatch, n));
  }

  benchmark::State& state = h.state();
  const double bytes_per_second = static_cast<double>(n * bytes_per_element) / times.seconds_per_op;
  const double peak = memory_ceiling_bytes_per_second(h.session());
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(n * bytes_per_element));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
  state.counters["pct_of_peak"] = 100.0 * bytes_per_second / peak;
  state.counters["peak_bytes_per_second"] = peak;
}

std::vector<std::int64_t> element_counts() {
  std::vector<std::int64_t> counts;
  for (std::int64_t n = std::int64_t{1} << 10; n <= std::int64_t{1} << 30; n *= 4) {
    counts.push_back(n);
  }
  return counts;
}

void declare(Registry& registry, const SaxpyOptions& options) {
  for (const Variant& variant : variants) {
    registry.add(
        fmt::format("saxpy/{}", variant.name),
        [&variant, options](Harness& h, std::int64_t n) {
          measure_saxpy(variant, options, h, static_cast<std::size_t>(n));
        },
        {element_counts(), ""});
  }
}

Family saxpy_family() {
  return {
      .name = "saxpy",
      .order = 10,
      .grammar = "saxpy/<variant>/<elements>",
      .argument = Argument{.key = "", .unit = "elements"},
      // 12 bytes per element; pct_of_peak is the same figure as a share of the memory ceiling
      // measured in the same process, drawn beside it.
      .figures = {{.counter = "bytes_per_second", .unit = "GB/s", .scale = 1e-9,
                   .better = Better::higher},
                  {.counter = "pct_of_peak", .unit = "% of ceiling", .scale = 1.0,
                   .better = Better::higher, .panel = true},
                  energy_figure(joules_per_gb), energy_above_idle_figure(joules_per_gb)},
      .kernels = {{"saxpy", reinterpret_cast<const void*>(saxpy)},
                  {"saxpy_vec4", reinterpret_cast<const void*>(saxpy_vec4)},
                  {"saxpy_vec4_tile", reinterpret_cast<const void*>(saxpy_vec4_tile)},
                  {"saxpy_vec4_tile_streaming",
                   reinterpret_cast<const void*>(saxpy_vec4_tile_streaming)}},
      .flags = {l2_flag()},
      .configure =
          [](const FlagValues& flags) {
            const SaxpyOptions options{.l2 = parse_l2(flags.of(l2_flag()))};
            return FamilyBenchmarks{
                .declare = [options](Registry& registry) { declare(registry, options); },
                .context = [options](const Registry&) {
                  return ContextEntries{{"saxpy_l2", to_string(options.l2)}};
                }};
          },
  };
}

} // namespace

GPUBENCH_FAMILY(saxpy_family);

} // namespace gpubench::bench
