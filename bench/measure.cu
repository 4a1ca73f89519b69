#include "measure.hpp"

#include "driver_api.hpp"
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

StreamGate::StreamGate() : flags_(2 * sizeof(int), CU_MEMHOSTALLOC_DEVICEMAP) {
  *release_flag(flags_) = 0;
  *timed_out_flag(flags_) = 0;
}

void StreamGate::hold(CUstream stream) {
  if (held_ == 0) {
    *release_flag(flags_) = 0;
    *timed_out_flag(flags_) = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
  const auto device_flags = reinterpret_cast<int*>(flags_.device_ptr());
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

// One L2's worth of writes, as nvbench flushes: it displaces what the timed work left in the L2
// at half the cost of writing twice the L2 (the flush is most of a small-N benchmark's time).
L2Flusher::L2Flusher(std::size_t l2_bytes) : buffer_(l2_bytes) {}

void L2Flusher::flush(CUstream stream) const {
  GPUBENCH_CU(cuMemsetD32Async, buffer_.ptr(), 0x2F2F2F2FU, buffer_.bytes() / 4, stream);
}

void EventPairs::ensure(std::size_t i) {
  while (starts_.size() <= i) {
    starts_.emplace_back();
    stops_.emplace_back();
  }
}

namespace {
void record(const Event& event, CUstream stream, Recording how) {
  if (how == Recording::in_capture) {
    event.record_in_capture(stream);
  } else {
    event.record(stream);
  }
}
} // namespace

void EventPairs::record_start(std::size_t i, CUstream stream, Recording how) {
  ensure(i);
  record(starts_[i], stream, how);
}

void EventPairs::record_stop(std::size_t i, CUstream stream, Recording how) {
  ensure(i);
  record(stops_[i], stream, how);
}

double EventPairs::total_seconds(std::size_t count) {
  double ms = 0.0;
  for (std::size_t i = 0; i < count; ++i) {
    ms += elapsed_ms(starts_[i], stops_[i]);
  }
  return ms * 1e-3;
}

} // namespace gpubench::bench
