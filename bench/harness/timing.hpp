#pragma once

#include <cuda.h>

#include <cstddef>
#include <string>
#include <vector>

namespace gpubench::bench {

// The timing strategies a family chooses from. `ops` is the operations one timed batch performs
// (Google Benchmark's iterations per batch). With `graph_ops` set, that many operations are
// captured once into a CUDA graph and each call replays it, so a batch is ops / graph_ops
// replays. `label` is the benchmark's own label (the clock watch may add "throttled").

// A stream a batch runs on, and its context where a batch spans devices (null: the current).
struct LaneSpec {
  CUstream stream;
  CUcontext context = nullptr;
};

// GPU time from events. Gated: the batch is queued behind a StreamGate and released at once, so
// the events time the GPU running it back to back. Not gated: for work the driver stages on the
// host (pageable copies), which a gate would deadlock. Several lanes run at once, released
// together; the batch takes as long as its longest lane. No lanes: the session's stream.
// host_paced: the host CPU sets the pace of the work (the driver stages a pageable copy through
// its own pinned buffers, one chunk after another), so the figure moves with the host as a
// host-clock figure does, and is marked host_timed.
struct GpuBatches {
  std::size_t ops;
  std::size_t graph_ops = 0;
  bool gated = true;
  bool host_paced = false;
  std::vector<LaneSpec> lanes = {};
  std::string label = {};
};

// GPU time of single operations, each after an L2 flush and between its own pair of events, so
// a small working set is timed from memory, not from the cache the last operation warmed.
struct FlushedOps {
  std::size_t ops;
  std::size_t graph_ops = 0; // 0 or ops: the whole flushed batch, events included, is captured
  std::string label = {};
};

// The host clock around a batch of calls, for what the host waits on or spends (launch
// submission, synchronous copies, loading a module).
struct HostClock {
  enum class Wait {
    none,        // the calls alone (they block, or nothing follows them)
    outside,     // the stream is drained after the timed region (submission cost alone)
    after_batch, // the stream is drained inside the timed region, once per batch
    after_each,  // each call is followed by draining the stream, inside the timed region
  };
  std::size_t ops;
  Wait wait = Wait::none;
  std::size_t graph_ops = 0;
  std::string label = {};
};

} // namespace gpubench::bench
