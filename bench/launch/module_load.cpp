// launch/module/<step>: what it costs to get a kernel ready before its first launch, as a process
// pays it: loading the embedded fatbin (cuModuleLoadData), JIT-compiling PTX for the same kernel,
// getting the kernel from the loaded module (cuModuleGetFunction), loading a library
// (cuLibraryLoadData), getting its context-independent kernel (cuLibraryGetKernel) and that
// kernel's function in the current context (cuKernelGetFunction), and the first launch after a
// load, through a module's CUfunction and through a library's CUkernel. Host clock
// (UseManualTime).
//
// Lazy or eager: where the driver does the loading work depends on the process's loading mode
// (CUDA_MODULE_LOADING, read once when the driver starts; cuModuleGetLoadingMode). Lazily, a load
// only registers the image and each kernel loads into the context when first asked for (a
// function handle, a launch); eagerly, the load does it all. No option of cuModuleLoadDataEx or
// cuLibraryLoadData chooses per load, so each run measures its process's mode, says which in
// `lazy_loading` (1 lazy, 0 eager) and in the context's cuda_module_loading, and the other
// mode's figures come from a second run: CUDA_MODULE_LOADING=EAGER gpubench
// --benchmark_filter=launch/module.
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

// What a step loaded, kept for the check that it works: the handle it got where it got one (a
// function, or a library's kernel, which cuLaunchKernel takes as a function), else the kernel of
// what it loaded.
struct Loaded {
  std::optional<Module> module;
  std::optional<Library> library;
  std::optional<DeviceBuffer> buffer;
  CUfunction function = nullptr;
  CUkernel kernel = nullptr;
  [[nodiscard]] CUfunction launchable() const {
    if (function != nullptr) {
      return function;
    }
    if (kernel != nullptr) {
      return reinterpret_cast<CUfunction>(kernel);
    }
    return library ? library->function("saxpy") : module->function("saxpy");
  }
  // Drops what the last load left and loads afresh, untimed.
  void fresh_module() {
    function = nullptr;
    module.reset();
    module.emplace(saxpy_fatbin().data());
  }
  void fresh_library() {
    function = nullptr;
    kernel = nullptr;
    library.reset();
    library.emplace(saxpy_fatbin().data());
  }
  void fresh_buffer(CUstream stream) {
    if (!buffer) {
      buffer.emplace(block_threads * sizeof(float));
    }
    GPUBENCH_CU(cuStreamSynchronize, stream);
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
    // Lazily, where the kernel loads into the context after cuModuleLoadData.
    {"module_get_function", [](Loaded& l, CUstream) { l.fresh_module(); },
     [](Loaded& l, CUstream) { l.function = l.module->function("saxpy"); }},
    {"library_load", [](Loaded& l, CUstream) { l.library.reset(); },
     [](Loaded& l, CUstream) { l.library.emplace(saxpy_fatbin().data()); }},
    // A handle no context holds: it loads nothing into one, in either mode.
    {"library_get_kernel", [](Loaded& l, CUstream) { l.fresh_library(); },
     [](Loaded& l, CUstream) { l.kernel = l.library->kernel("saxpy"); }},
    // Lazily, where the library's kernel loads into the current context.
    {"kernel_get_function",
     [](Loaded& l, CUstream) {
       l.fresh_library();
       l.kernel = l.library->kernel("saxpy");
     },
     [](Loaded& l, CUstream) { GPUBENCH_CU(cuKernelGetFunction, &l.function, l.kernel); }},
    // The first launch and its synchronisation after a fresh load, from the loaded image to the
    // kernel's end: through the module, its cuModuleGetFunction included, and through the
    // library's kernel (got untimed: a handle no context holds), where a lazy load into the
    // context is the launch's own.
    {"first_launch",
     [](Loaded& l, CUstream stream) {
       l.fresh_module();
       l.fresh_buffer(stream);
     },
     [](Loaded& l, CUstream stream) {
       launch_small_saxpy(l.module->function("saxpy"), stream, *l.buffer);
     },
     HostClock::Wait::after_each},
    {"kernel_first_launch",
     [](Loaded& l, CUstream stream) {
       l.fresh_library();
       l.kernel = l.library->kernel("saxpy");
       l.fresh_buffer(stream);
     },
     [](Loaded& l, CUstream stream) {
       launch_small_saxpy(reinterpret_cast<CUfunction>(l.kernel), stream, *l.buffer);
     },
     HostClock::Wait::after_each},
};

void measure_step(const Step& step, Harness& h) {
  const CUstream stream = h.stream();
  Loaded loaded;
  step.prepare(loaded, stream);
  const LoopTimes times = h.exec(
      HostClock{.ops = 1, .wait = step.wait}, [&] { step.load(loaded, stream); },
      [&] { step.prepare(loaded, stream); });
  Harness::verify(check_saxpy(loaded.launchable(), stream));
  // The median load: a JIT or loader call that the OS happens to preempt is not the typical cost.
  h.state().counters["us_per_launch"] = times.seconds_per_op * 1e6;
  h.state().counters["lazy_loading"] = module_loading() == ModuleLoading::lazy ? 1.0 : 0.0;
}

} // namespace

ContextEntries module_loading_context() {
  return {{"cuda_module_loading", to_string(module_loading())}};
}

void register_module_loading(Registry& registry) {
  for (const Step& step : steps) {
    registry.add(fmt::format("launch/module/{}", step.name),
                 [&step](Harness& h, std::int64_t) { measure_step(step, h); });
  }
}

} // namespace gpubench::bench
