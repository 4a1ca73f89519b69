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
#include <memory>
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

// Host floats left unwritten until their first use: each page is first touched by the parallel
// pass that writes it, where a vector's would be zeroed by one thread first, and none is pinned
// (on the H200's host, 4 GiB took 1.3 s to zero and 2.3 s to pin, against 0.7 s to upload from
// pageable memory: results/h200/speed/saxpy_setup_probe.txt). The inputs live here.
class HostFloats {
public:
  HostFloats() = default;
  explicit HostFloats(std::size_t n)
      : data_(std::make_unique_for_overwrite<float[]>(n)), size_(n) {}
  [[nodiscard]] std::span<float> span() const noexcept { return {data_.get(), size_}; }

private:
  std::unique_ptr<float[]> data_;
  std::size_t size_ = 0;
};

// The family's state, kept across Google Benchmark's runs: random inputs on host and device
// for the largest N asked for so far (smaller N use a prefix), one saxpy's CPU reference on the
// device where it fits, the walk-through's module, and cuBLAS once a cuBLAS benchmark has run.
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
      x = HostFloats();
      y0 = HostFloats();
      result.reset();
      expected.reset();
      dx.reset();
      dy.reset();
      dy0.reset();
      dx.emplace(size * sizeof(float));
      dy.emplace(size * sizeof(float));
      dy0.emplace(size * sizeof(float));
      x = HostFloats(size);
      y0 = HostFloats(size);
      result.emplace(size * sizeof(float));
      fill_random(x.span(), x_seed);
      fill_random(y0.span(), y_seed);
      upload(dx->ptr(), x.span().data(), size * sizeof(float));
      upload(dy0->ptr(), y0.span().data(), size * sizeof(float));
      upload_reference(size);
    });
  }

  // One saxpy of the inputs computed by the CPU (saxpy_reference) and kept on the device, so
  // checking a run of one application is a comparison on the device, not N floats back over
  // PCIe and through the host's memory on every Google Benchmark run. Only where it fits beside
  // x, y and y's initial values, with room to spare; elsewhere the check runs on the host.
  void upload_reference(std::size_t n) {
    constexpr std::size_t spare_bytes = std::size_t{256} << 20;
    if (free_device_bytes() < n * sizeof(float) + spare_bytes) {
      return;
    }
    const std::span<float> reference(reinterpret_cast<float*>(result->data()), n);
    const std::span<const float> xs = x.span();
    const std::span<const float> y0s = y0.span();
    parallel_chunks(n, [&](std::size_t begin, std::size_t end) {
      const std::size_t count = end - begin;
      std::ranges::copy(y0s.subspan(begin, count), reference.subspan(begin, count).begin());
      saxpy_reference(alpha, xs.subspan(begin, count), reference.subspan(begin, count));
    });
    expected.emplace(n * sizeof(float));
    upload(expected->ptr(), reference.data(), n * sizeof(float));
  }

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
  Capacity capacity; // elements
  HostFloats x;
  HostFloats y0;
  // The CPU's reference on its way up and y on its way back to be checked. Pinned: GiBs come
  // back at full speed, and with this buffer pageable, small flushed saxpy sat at another level
  // (4096 elements 10% slower, 16384 10% faster) in 10 of 14 processes, pinned in none of 34
  // (results/h200/speed/saxpy_host_setup/).
  std::optional<PinnedHostBuffer> result;
  std::optional<DeviceBuffer> dx;
  std::optional<DeviceBuffer> dy;
  std::optional<DeviceBuffer> dy0;      // y's initial values, to restore y on the device
  std::optional<DeviceBuffer> expected; // fmaf(alpha, x, y0) from the CPU, where it fits
  // Declared before the handle, so that it outlives it.
  std::optional<CublasLibrary> cublas_library;
  std::optional<CublasHandle> cublas_handle;
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
// application with the reference on the device is compared there; otherwise y comes back and
// the CPU computes and compares (find_saxpy_mismatch).
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
    return SaxpyMismatch{i, std::fmaf(s.alpha, s.x.span()[i], s.y0.span()[i]), actual};
  }
  GPUBENCH_CU(cuMemcpyDtoHAsync, s.result->data(), s.dy->ptr(), n * sizeof(float), stream);
  GPUBENCH_CU(cuStreamSynchronize, stream);
  const std::span<const float> x = s.x.span().first(n);
  const std::span<const float> y0 = s.y0.span().first(n);
  const std::span<const float> y(reinterpret_cast<const float*>(s.result->data()), n);
  return find_saxpy_mismatch(s.alpha, x, y0, y, applications);
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
