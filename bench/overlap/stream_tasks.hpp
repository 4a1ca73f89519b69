#pragma once

#include "overlap_buffers.hpp"
#include "stream_combos.hpp"

#include <cuda.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpubench::bench {

class Session;

// What one stream of a combination runs, on its own stream and regions: each work a small type
// (stream_tasks.cpp) that sets up its regions, queues one operation, and checks what it left.
class StreamTask {
public:
  explicit StreamTask(CUstream stream) : stream_(stream) {}
  StreamTask(const StreamTask&) = delete;
  StreamTask& operator=(const StreamTask&) = delete;
  StreamTask(StreamTask&&) = delete;
  StreamTask& operator=(StreamTask&&) = delete;
  virtual ~StreamTask() = default;

  [[nodiscard]] CUstream stream() const noexcept { return stream_; }
  // Bytes one operation counts towards its rate: a copy's size; the saxpy's 12 bytes an element
  // (read x, read y, write y), as the saxpy family counts them.
  [[nodiscard]] virtual std::size_t bytes_per_op() const = 0;
  // Whether it runs on a copy engine (a copy) rather than the SMs (the saxpy).
  [[nodiscard]] virtual bool is_copy() const = 0;
  // Puts the source's random bytes in place and poisons the destination (a copy), or restores
  // y's initial values (the saxpy); returns with all of it done.
  virtual void prepare() const = 0;
  // Queues one operation on its stream.
  virtual void enqueue() const = 0;
  // Where the destination differs from what `ops` operations since prepare() leave, if it does
  // (a copy's bytes whatever the count); waits for its stream.
  [[nodiscard]] virtual std::optional<std::string> check(std::size_t ops) const = 0;

private:
  CUstream stream_;
};

// One task for each stream of `combo`, of `bytes` each, stream i on buffers.streams[i] with the
// copies in slots 0, 1, ... in order. `buffers` holds room for `bytes` a slot.
[[nodiscard]] std::vector<std::unique_ptr<StreamTask>> make_stream_tasks(const StreamCombo& combo,
                                                                         std::size_t bytes,
                                                                         OverlapBuffers& buffers,
                                                                         const Session& session);

} // namespace gpubench::bench
