#include "driver_api.hpp"

#include "cuda_error.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <atomic>
#include <type_traits>

namespace gpubench {
namespace {

std::atomic<const DriverApi*> g_loaded{nullptr};

template <typename Fn> void load_entry_point(Fn& fn, const char* name, unsigned int version) {
  void* address = nullptr;
  cudaDriverEntryPointQueryResult status{};
  check(cudaGetDriverEntryPointByVersion(name, &address, version, cudaEnableDefault, &status),
        fmt::format("cudaGetDriverEntryPointByVersion(\"{}\")", name));
  fn = status == cudaDriverEntryPointSuccess ? reinterpret_cast<Fn>(address) : nullptr;
}

// The version chosen for each function must give the signature cuda.h declares for its name.
#define GPUBENCH_CHECK_ABI(fn, version)                                                            \
  static_assert(std::is_same_v<PFN_##fn##_v##version, decltype(&::fn)>, #fn);
GPUBENCH_DRIVER_FUNCTIONS(GPUBENCH_CHECK_ABI)
#undef GPUBENCH_CHECK_ABI

DriverApi load() {
  DriverApi api;
#define GPUBENCH_LOAD_MEMBER(fn, version) load_entry_point(api.fn, #fn, version);
  GPUBENCH_DRIVER_FUNCTIONS(GPUBENCH_LOAD_MEMBER)
#undef GPUBENCH_LOAD_MEMBER
  return api;
}

// The runtime reports a missing driver as "insufficient"; say plainly when there is none.
void throw_if_no_driver_library() {
  void* library = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    throw CudaError("dlopen(\"libcuda.so.1\")", "no NVIDIA driver",
                    why != nullptr ? why : "libcuda.so.1 cannot be loaded",
                    cudaErrorInsufficientDriver);
  }
  dlclose(library);
}

DriverApi load_checked() {
  try {
    return load();
  } catch (const CudaError& error) {
    if (error.code() == cudaErrorInsufficientDriver) {
      throw_if_no_driver_library();
    }
    throw;
  }
}

} // namespace

const DriverApi& driver_api() {
  static const DriverApi api = [] {
    DriverApi loaded = load_checked();
    check(require_driver_function(loaded.cuInit, "cuInit")(0), "cuInit(0)");
    return loaded;
  }();
  g_loaded.store(&api, std::memory_order_release);
  return api;
}

const DriverApi* loaded_driver_api() noexcept { return g_loaded.load(std::memory_order_acquire); }

} // namespace gpubench

namespace gpubench {

void check(CUresult result, std::string_view call) {
  if (result == CUDA_SUCCESS) {
    return;
  }
  const char* name = nullptr;
  const char* description = nullptr;
  if (const DriverApi* api = loaded_driver_api()) {
    api->cuGetErrorName(result, &name);
    api->cuGetErrorString(result, &description);
  }
  const std::string fallback = fmt::format("CUresult {}", static_cast<int>(result));
  throw CudaError(call, name != nullptr ? name : fallback,
                  description != nullptr ? description : "unknown error", result);
}

} // namespace gpubench
