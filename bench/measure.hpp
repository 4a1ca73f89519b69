#pragma once

#include "memory.hpp"
#include "stream.hpp"

#include <cuda.h>

#include <chrono>
#include <cstddef>
#include <vector>

namespace gpubench::bench {

class Session;

// Holds one or more streams behind a kernel that spins until the host releases it, so a batch
// of queued work starts back to back on the GPU instead of trickling in as the host enqueues
// it: event times then measure the GPU, not the host's enqueue rate (nvbench's blocking
// kernel, nvbandwidth's spin kernel). Only for work the driver queues without waiting on the
// stream: a pageable copy would wait for the gate and deadlock until the timeout.
class StreamGate {
public:
  StreamGate();
  void hold(CUstream stream);
  void release();
  // After the held work finished: throws if a gate gave up waiting before release().
  void throw_if_timed_out() const;

private:
  PinnedHostBuffer flags_;
  int held_ = 0;
};

// Evicts the L2 before a timed launch by writing a device buffer the L2's size, so a
// small working set is read from memory, not from a cache the previous iteration warmed.
class L2Flusher {
public:
  explicit L2Flusher(std::size_t l2_bytes);
  void flush(CUstream stream) const;

private:
  DeviceBuffer buffer_;
};

// Per-operation start/stop event pairs, recorded around each of a batch of operations, on a
// stream or into the graph it is capturing.
enum class Recording { on_stream, in_capture };

class EventPairs {
public:
  void record_start(std::size_t i, CUstream stream, Recording how = Recording::on_stream);
  void record_stop(std::size_t i, CUstream stream, Recording how = Recording::on_stream);
  // Sum over the first `count` pairs, in seconds; waits for the last stop.
  [[nodiscard]] double total_seconds(std::size_t count);

private:
  void ensure(std::size_t i);
  std::vector<Event> starts_;
  std::vector<Event> stops_;
};

// Seconds on the host clock for fn().
template <typename Fn> double host_seconds(Fn&& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Seconds on the GPU for a batch of `count` enqueue() calls on `stream`, started together from
// behind `gate`. The caller keeps `count` well under the stream's queue depth (~1000 entries).
template <typename Enqueue>
double gated_batch_seconds(StreamGate& gate, CUstream stream, std::size_t count,
                           Enqueue&& enqueue) {
  const Event start;
  const Event stop;
  gate.hold(stream);
  start.record(stream);
  for (std::size_t i = 0; i < count; ++i) {
    enqueue();
  }
  stop.record(stream);
  gate.release();
  const double seconds = elapsed_ms(start, stop) * 1e-3;
  gate.throw_if_timed_out();
  return seconds;
}

} // namespace gpubench::bench
