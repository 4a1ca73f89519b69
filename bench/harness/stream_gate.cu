#include "stream_gate.hpp"

#include "cuda_error.hpp"
#include "stream_gate.cuh"

#include <atomic>
#include <stdexcept>

namespace gpubench::bench {
namespace {
// Long enough for any batch the host enqueues, short enough that a lost release is a clear
// error rather than a hang.
constexpr unsigned long long gate_timeout_ns = 10'000'000'000ULL;

volatile int* release_flag(const PinnedHostBuffer& flags) {
  return reinterpret_cast<volatile int*>(flags.data());
}
volatile int* timed_out_flag(const PinnedHostBuffer& flags) {
  return reinterpret_cast<volatile int*>(flags.data()) + 1;
}
} // namespace

StreamGate::StreamGate()
    : flags_(2 * sizeof(int), CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE) {
  *release_flag(flags_) = 0;
  *timed_out_flag(flags_) = 0;
}

void StreamGate::hold(CUstream stream) {
  if (held_ == 0) {
    *release_flag(flags_) = 0;
    *timed_out_flag(flags_) = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
  // Under unified addressing the host address of portable mapped memory is its device address
  // on every device.
  const auto device_flags = reinterpret_cast<int*>(flags_.data());
  stream_gate<<<1, 1, 0, stream>>>(device_flags, gate_timeout_ns, device_flags + 1);
  GPUBENCH_CUDART(cudaGetLastError());
  ++held_;
}

void StreamGate::release() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *release_flag(flags_) = 1;
  held_ = 0;
}

void StreamGate::throw_if_timed_out() const {
  if (*timed_out_flag(flags_) != 0) {
    throw std::runtime_error("the stream gate timed out before the host released it");
  }
}

} // namespace gpubench::bench
