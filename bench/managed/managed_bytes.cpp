#include "managed_bytes.hpp"

#include "random_fill.hpp"

namespace gpubench::bench {

void ManagedBytes::ensure_capacity(std::size_t bytes) {
  capacity.ensure(bytes, [this](std::size_t size) {
    host_copy.reset();
    readback.reset();
    device_copy.reset();
    expected.reset();
    expected.emplace(size);
    fill_random(expected->span(), 0x3A7A6ED);
    device_copy.emplace(size);
    readback.emplace(size);
    host_copy.emplace(size);
  });
}

} // namespace gpubench::bench
