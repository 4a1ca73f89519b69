#pragma once

#include "unique_handle.hpp"

#include <cuda.h>

namespace gpubench {

namespace detail {
struct StreamRelease {
  void operator()(CUstream stream) const noexcept;
};
struct EventRelease {
  void operator()(CUevent event) const noexcept;
};
} // namespace detail

// A non-blocking stream: it never synchronises with the legacy default stream, so a benchmark's
// work is not serialised behind unrelated work.
class Stream {
public:
  Stream();
  [[nodiscard]] CUstream get() const noexcept { return handle_.get(); }
  void synchronize() const;

private:
  UniqueHandle<CUstream, detail::StreamRelease> handle_;
};

// A timing event (default flags, so it records timestamps).
class Event {
public:
  Event();
  [[nodiscard]] CUevent get() const noexcept { return handle_.get(); }
  void record(CUstream stream) const;
  // Recorded into the graph `stream` is capturing, as an event-record node that each replay
  // fills with a timestamp (a plain record during capture only orders the graph's work).
  void record_in_capture(CUstream stream) const;
  void synchronize() const;

private:
  UniqueHandle<CUevent, detail::EventRelease> handle_;
};

// Milliseconds between two recorded events; waits for `stop`.
[[nodiscard]] double elapsed_ms(const Event& start, const Event& stop);

} // namespace gpubench
