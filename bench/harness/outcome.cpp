#include "outcome.hpp"

#include "cuda_error.hpp"
#include "driver_api.hpp"
#include "interrupt.hpp"

#include <atomic>
#include <mutex>

namespace gpubench::bench {
namespace {
std::atomic<int> g_failures{0};
std::atomic<int> g_completed{0};
std::mutex g_mutex; // guards g_fault and g_first_skip
std::optional<std::string> g_fault;
std::optional<std::string> g_first_skip;

// Errors after which the context is unusable and every later CUDA call fails too (the CUDA
// programming guide's "sticky" errors). The runtime's codes for these equal the driver's.
bool is_sticky(int code) {
  switch (code) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_ECC_UNCORRECTABLE:
  case CUDA_ERROR_CONTEXT_IS_DESTROYED:
  case CUDA_ERROR_DEVICE_UNAVAILABLE:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
    return true;
  default:
    return false;
  }
}

// Whether the current context still works after an error: a faulted one fails even a sync.
bool context_works() noexcept {
  const DriverApi* api = loaded_driver_api();
  return api == nullptr || api->cuCtxSynchronize == nullptr ||
         api->cuCtxSynchronize() == CUDA_SUCCESS;
}

// Keeps `what` in `slot` unless it holds an earlier value already.
void keep_first(std::optional<std::string>& slot, const std::string& what) {
  const std::lock_guard lock(g_mutex);
  if (!slot) {
    slot = what;
  }
}

void record_fault(const std::string& what) { keep_first(g_fault, what); }
} // namespace

void fail(benchmark::State& state, const std::string& why) {
  g_failures.fetch_add(1, std::memory_order_relaxed);
  state.SkipWithError(why.c_str());
}

void skip(benchmark::State& state, const std::string& why) {
  keep_first(g_first_skip, why);
  state.SkipWithError(("skipped: " + why).c_str());
}

int failure_count() noexcept { return g_failures.load(std::memory_order_relaxed); }

int completed_count() noexcept { return g_completed.load(std::memory_order_relaxed); }

std::optional<std::string> first_skip() {
  const std::lock_guard lock(g_mutex);
  return g_first_skip;
}

std::optional<std::string> device_fault() {
  const std::lock_guard lock(g_mutex);
  return g_fault;
}

void guarded(benchmark::State& state, const std::function<void()>& body) {
  if (interrupt_signal() != 0) {
    finish_interrupted();
  }
  if (const auto fault = device_fault()) {
    skip(state, "the GPU faulted in an earlier benchmark: " + *fault);
    return;
  }
  try {
    body();
    g_completed.fetch_add(1, std::memory_order_relaxed);
  } catch (const Interrupted&) {
    finish_interrupted();
  } catch (const SkipBenchmark& why) {
    skip(state, why.what());
  } catch (const CudaError& error) {
    if (is_sticky(error.code()) || !context_works()) {
      record_fault(error.what());
    }
    fail(state, error.what());
  } catch (const std::exception& error) {
    // A fault can surface first as another error (a library's, a check that read garbage).
    if (!context_works()) {
      record_fault(error.what());
    }
    fail(state, error.what());
  }
}

} // namespace gpubench::bench
