#include "stream.hpp"

#include "driver_api.hpp"

namespace gpubench {
namespace detail {
void StreamRelease::operator()(CUstream stream) const noexcept {
  driver_api().cuStreamDestroy(stream);
}
void EventRelease::operator()(CUevent event) const noexcept { driver_api().cuEventDestroy(event); }
} // namespace detail

Stream::Stream() {
  CUstream stream = nullptr;
  GPUBENCH_CU(cuStreamCreate, &stream, CU_STREAM_NON_BLOCKING);
  handle_ = decltype(handle_)(stream);
}

void Stream::synchronize() const { GPUBENCH_CU(cuStreamSynchronize, get()); }

Event::Event() {
  CUevent event = nullptr;
  GPUBENCH_CU(cuEventCreate, &event, CU_EVENT_DEFAULT);
  handle_ = decltype(handle_)(event);
}

void Event::record(CUstream stream) const { GPUBENCH_CU(cuEventRecord, get(), stream); }

void Event::record_in_capture(CUstream stream) const {
  GPUBENCH_CU(cuEventRecordWithFlags, get(), stream, CU_EVENT_RECORD_EXTERNAL);
}

void Event::synchronize() const { GPUBENCH_CU(cuEventSynchronize, get()); }

double elapsed_ms(const Event& start, const Event& stop) {
  stop.synchronize();
  float ms = 0.0F;
  GPUBENCH_CU(cuEventElapsedTime, &ms, start.get(), stop.get());
  return ms;
}

} // namespace gpubench
