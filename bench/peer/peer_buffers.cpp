#include "peer_buffers.hpp"

#include "driver_api.hpp"
#include "random_fill.hpp"

namespace gpubench::bench {

void PeerExpected::ensure_capacity(std::size_t bytes) {
  if (bytes <= capacity) {
    return;
  }
  readback.reset();
  expected.reset();
  expected.emplace(bytes);
  fill_random(expected->span(), 0x9EE7);
  readback.emplace(bytes);
  capacity = bytes;
}

void PeerBuffers::ensure_capacity(std::size_t bytes, const PeerExpected& expected) {
  if (bytes <= capacity) {
    return;
  }
  source.reset();
  destination.reset();
  source.emplace(bytes);
  destination.emplace(bytes);
  GPUBENCH_CU(cuMemcpyHtoD, source->ptr(), expected.expected->data(), bytes);
  capacity = bytes;
}

} // namespace gpubench::bench
