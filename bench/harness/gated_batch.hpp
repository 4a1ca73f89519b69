#pragma once

#include "stream.hpp"
#include "stream_gate.hpp"

#include <cuda.h>

#include <algorithm>
#include <cstddef>
#include <span>

namespace gpubench::bench {

// A stream a timed batch runs on, with the events that time it. `context` is the stream's
// context where a batch spans devices (it is made current to hold and record on the stream);
// null means the current one.
struct Lane {
  Lane(CUstream stream, CUcontext context);
  CUstream stream;
  CUcontext context;
  Event start;
  Event stop;
};

// Makes `context` current when it is not null.
void make_current(CUcontext context);

// Seconds on the GPU for a batch of `count` enqueue() calls, each of which queues work on the
// lanes' streams. With a gate, every lane is held, the batch queued and all lanes released
// together, so the time is that of the lanes running at once: the longest lane, start to stop.
// Without one (work the driver stages on the host), the events bracket the work as it is
// queued. The caller keeps `count` well under a stream's queue depth (~1000 entries).
// A batch that throws before its release releases the gate on the way out: the held lanes run
// on at once rather than spin until the gate's timeout, and the next batch holds a fresh gate.
template <typename Enqueue>
double batch_seconds(StreamGate* gate, std::span<Lane> lanes, std::size_t count,
                     Enqueue&& enqueue) {
  try {
    for (Lane& lane : lanes) {
      make_current(lane.context);
      if (gate != nullptr) {
        gate->hold(lane.stream);
      }
      lane.start.record(lane.stream);
    }
    make_current(lanes.front().context);
    for (std::size_t i = 0; i < count; ++i) {
      enqueue();
    }
    for (Lane& lane : lanes) {
      lane.stop.record(lane.stream);
    }
  } catch (...) {
    if (gate != nullptr) {
      gate->release();
    }
    throw;
  }
  if (gate != nullptr) {
    gate->release();
  }
  double ms = 0.0;
  for (Lane& lane : lanes) {
    ms = std::max(ms, elapsed_ms(lane.start, lane.stop));
  }
  if (gate != nullptr) {
    gate->throw_if_timed_out();
  }
  return ms * 1e-3;
}

} // namespace gpubench::bench
