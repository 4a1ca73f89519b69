#pragma once

#include "stream.hpp"

#include <cuda.h>

#include <cstddef>
#include <vector>

namespace gpubench::bench {

// Whether an event is recorded on a stream or into the graph the stream is capturing.
enum class Recording { on_stream, in_capture };

// Per-operation start/stop event pairs, recorded around each of a batch of operations.
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

} // namespace gpubench::bench
