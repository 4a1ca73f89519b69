// launch/module/<step>: what it costs to get a kernel ready before its first launch: loading the
// embedded fatbin (cuModuleLoadData), JIT-compiling PTX for the same kernel, loading a library
// lazily (cuLibraryLoadData), and the first launch after a load. Host clock (UseManualTime).
#include "module_load.hpp"

#include "driver_api.hpp"
#include "embedded_images.hpp"
#include "harness.hpp"
#include "memory.hpp"
#include "module.hpp"
#include "random_fill.hpp"
#include "registry.hpp"
#include "saxpy_reference.hpp"

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

// What a step loaded, kept for the check that it works.
struct Loaded {
  std::optional<Module> module;
  std::optional<Library> library;
  std::optional<DeviceBuffer> buffer;
  [[nodiscard]] CUfunction function() const {
    return library ? library->function("saxpy") : module->function("saxpy");
  }
};

// One way of getting a kernel ready: prepare() runs untimed before each load (dropping the
// last one), load() is timed, followed by draining the stream where `wait` says so.
struct Step {
  const char* name;
  void (*prepare)(Loaded& loaded, CUstream stream);
  void (*load)(Loaded& loaded, CUstream stream);
  HostClock::Wait wait = HostClock::Wait::none;
};

const Step steps[] = {
    {"cubin_load", [](Loaded& l, CUstream) { l.module.reset(); },
     [](Loaded& l, CUstream) { l.module.emplace(saxpy_fatbin().data()); }},
    {"ptx_jit", [](Loaded& l, CUstream) { l.module.reset(); },
     [](Loaded& l, CUstream) { l.module.emplace(saxpy_ptx()); }},
    {"library_load", [](Loaded& l, CUstream) { l.library.reset(); },
     [](Loaded& l, CUstream) { l.library.emplace(saxpy_fatbin().data()); }},
    // The first launch and its synchronisation after a fresh load.
    {"first_launch",
     [](Loaded& l, CUstream stream) {
       l.module.reset();
       l.module.emplace(saxpy_fatbin().data());
       if (!l.buffer) {
         l.buffer.emplace(block_threads * sizeof(float));
       }
       GPUBENCH_CU(cuStreamSynchronize, stream);
     },
     [](Loaded& l, CUstream stream) {
       launch_small_saxpy(l.module->function("saxpy"), stream, *l.buffer);
     },
     HostClock::Wait::after_each},
};

void measure_step(const Step& step, Harness& h) {
  const CUstream stream = h.stream();
  Loaded loaded;
  step.prepare(loaded, stream);
  const LoopTimes times =
      h.exec(HostClock{.ops = 1, .wait = step.wait},
             [&] { step.load(loaded, stream); }, [&] { step.prepare(loaded, stream); });
  Harness::verify(check_saxpy(loaded.function(), stream));
  // The median load: a JIT or loader call that the OS happens to preempt is not the typical cost.
  h.state().counters["us_per_launch"] = times.seconds_per_op * 1e6;
}

} // namespace

void register_module_loading(Registry& registry) {
  for (const Step& step : steps) {
    registry.add(fmt::format("launch/module/{}", step.name),
                 [&step](Harness& h, std::int64_t) { measure_step(step, h); });
  }
}

} // namespace gpubench::bench
