// launch/module/<step>: what it costs to get a kernel ready before its first launch: loading the
// embedded fatbin (cuModuleLoadData), JIT-compiling PTX for the same kernel, loading a library
// lazily (cuLibraryLoadData), and the first launch after a load. Host clock (UseManualTime).
#include "benchmarks.hpp"
#include "driver_api.hpp"
#include "embedded_images.hpp"
#include "failures.hpp"
#include "measure.hpp"
#include "memory.hpp"
#include "module.hpp"
#include "random_fill.hpp"
#include "saxpy_reference.hpp"
#include "session.hpp"
#include "timed_loop.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

namespace gpubench::bench {
namespace {

constexpr int check_elements = 4096;
constexpr int block_threads = 256;

// Runs one saxpy through `function` and checks it: proof that what was loaded works.
std::optional<std::string> check_saxpy(CUfunction function, CUstream stream) {
  std::vector<float> x(check_elements);
  std::vector<float> y0(check_elements);
  std::vector<float> y(check_elements);
  fill_random(x, 11);
  fill_random(y0, 12);
  const DeviceBuffer dx(check_elements * sizeof(float));
  const DeviceBuffer dy(check_elements * sizeof(float));
  GPUBENCH_CU(cuMemcpyHtoDAsync, dx.ptr(), x.data(), dx.bytes(), stream);
  GPUBENCH_CU(cuMemcpyHtoDAsync, dy.ptr(), y0.data(), dy.bytes(), stream);
  float alpha = 0.75F;
  CUdeviceptr px = dx.ptr();
  CUdeviceptr py = dy.ptr();
  int n = check_elements;
  void* params[] = {&alpha, &px, &py, &n};
  GPUBENCH_CU(cuLaunchKernel, function, check_elements / block_threads, 1, 1, block_threads, 1, 1,
              0, stream, params, nullptr);
  GPUBENCH_CU(cuMemcpyDtoHAsync, y.data(), dy.ptr(), dy.bytes(), stream);
  GPUBENCH_CU(cuStreamSynchronize, stream);
  if (const auto mismatch = find_saxpy_mismatch(alpha, x, y0, y)) {
    return describe(*mismatch, check_elements);
  }
  return std::nullopt;
}

void launch_small_saxpy(CUfunction function, CUstream stream, const DeviceBuffer& buffer) {
  float alpha = 1.0F;
  CUdeviceptr p = buffer.ptr();
  int n = block_threads;
  void* params[] = {&alpha, &p, &p, &n};
  GPUBENCH_CU(cuLaunchKernel, function, 1, 1, 1, block_threads, 1, 1, 0, stream, params, nullptr);
}

struct Step {
  const char* name;
  // Times one iteration of the step; leaves a loaded function behind for the check.
  double (*time)(CUstream stream, std::optional<Module>& module, std::optional<Library>& library);
};

const Step steps[] = {
    {"cubin_load",
     [](CUstream, std::optional<Module>& module, std::optional<Library>&) {
       module.reset();
       return host_seconds([&] { module.emplace(saxpy_fatbin().data()); });
     }},
    {"ptx_jit",
     [](CUstream, std::optional<Module>& module, std::optional<Library>&) {
       module.reset();
       return host_seconds([&] { module.emplace(saxpy_ptx()); });
     }},
    {"library_load",
     [](CUstream, std::optional<Module>&, std::optional<Library>& library) {
       library.reset();
       return host_seconds([&] { library.emplace(saxpy_fatbin().data()); });
     }},
    {"first_launch",
     [](CUstream stream, std::optional<Module>& module, std::optional<Library>&) {
       module.reset();
       module.emplace(saxpy_fatbin().data());
       const DeviceBuffer buffer(block_threads * sizeof(float));
       GPUBENCH_CU(cuStreamSynchronize, stream);
       return host_seconds([&] {
         launch_small_saxpy(module->function("saxpy"), stream, buffer);
         GPUBENCH_CU(cuStreamSynchronize, stream);
       });
     }},
};

void run_step(benchmark::State& state, const Step& step) {
  const CUstream stream = session().stream();
  std::optional<Module> module;
  std::optional<Library> library;
  static_cast<void>(step.time(stream, module, library)); // warm-up
  const LoopTimes times =
      timed_loop(state, 1, [&] { return step.time(stream, module, library); });
  const CUfunction function = library ? library->function("saxpy") : module->function("saxpy");
  if (const auto wrong = check_saxpy(function, stream)) {
    fail(state, *wrong);
    return;
  }
  // The median load: a JIT or loader call that the OS happens to preempt is not the typical cost.
  state.counters["us_per_launch"] = times.median_batch_seconds * 1e6;
}

} // namespace

void register_module_loading() {
  for (const Step& step : steps) {
    benchmark::RegisterBenchmark(
        fmt::format("launch/module/{}", step.name).c_str(),
        [&step](benchmark::State& state) { guarded(state, [&] { run_step(state, step); }); })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  }
}

} // namespace gpubench::bench
