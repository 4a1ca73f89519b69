#include "event_pairs.hpp"

namespace gpubench::bench {
namespace {
void record(const Event& event, CUstream stream, Recording how) {
  if (how == Recording::in_capture) {
    event.record_in_capture(stream);
  } else {
    event.record(stream);
  }
}
} // namespace

void EventPairs::ensure(std::size_t i) {
  while (starts_.size() <= i) {
    starts_.emplace_back();
    stops_.emplace_back();
  }
}

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
