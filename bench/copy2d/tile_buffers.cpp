#include "tile_buffers.hpp"

#include "random_fill.hpp"

#include <cuda.h>

namespace gpubench::bench {

void TileBuffers::ensure_capacity(std::size_t bytes) {
  capacity.ensure(bytes, [this](std::size_t size) {
    readback.reset();
    host.reset();
    device_destination.reset();
    device_source.reset();
    expected.reset();
    expected.emplace(size);
    fill_random(expected->span(), 0x2D711E);
    device_source.emplace(size);
    upload(device_source->ptr(), expected->data(), size);
    device_destination.emplace(size);
    host.emplace(size, CU_MEMHOSTALLOC_PORTABLE);
    readback.emplace(size);
  });
}

} // namespace gpubench::bench
