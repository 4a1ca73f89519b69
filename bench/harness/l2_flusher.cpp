#include "l2_flusher.hpp"

#include "driver_api.hpp"
#include "session.hpp"

namespace gpubench::bench {

L2Flusher::L2Flusher(std::size_t l2_bytes) : buffer_(l2_bytes) {}

L2Flusher::L2Flusher(Session& session)
    : L2Flusher(static_cast<std::size_t>(session.device().l2_bytes)) {}

void L2Flusher::flush(CUstream stream) const {
  GPUBENCH_CU(cuMemsetD32Async, buffer_.ptr(), 0x2F2F2F2FU, buffer_.bytes() / 4, stream);
}

} // namespace gpubench::bench
