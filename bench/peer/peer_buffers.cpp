#include "peer_buffers.hpp"

#include "driver_api.hpp"
#include "memory.hpp"
#include "random_fill.hpp"

namespace gpubench::bench {

void PeerExpected::ensure_capacity(std::size_t bytes) {
  capacity.ensure(bytes, [this](std::size_t size) {
    readback.reset();
    expected.reset();
    expected.emplace(size);
    fill_random(expected->span(), 0x9EE7);
    readback.emplace(size);
  });
}

void PeerBuffers::ensure_capacity(std::size_t bytes, const PeerExpected& expected) {
  capacity.ensure(bytes, [&](std::size_t size) {
    source.reset();
    destination.reset();
    source.emplace(size);
    destination.emplace(size);
    upload(source->ptr(), expected.expected->data(), size);
  });
}

} // namespace gpubench::bench
