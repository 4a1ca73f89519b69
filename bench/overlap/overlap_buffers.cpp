#include "overlap_buffers.hpp"

#include "random_fill.hpp"

namespace gpubench::bench {
namespace {
constexpr std::uint64_t slots_seed = 0x0E7E1A9;
constexpr std::uint64_t x_seed = 0x0E7E1A91;
constexpr std::uint64_t y_seed = 0x0E7E1A92;

std::span<float> floats(const PageableHostBuffer& buffer, std::size_t n) {
  return {reinterpret_cast<float*>(buffer.data()), n};
}
} // namespace

void OverlapBuffers::ensure_capacity(std::size_t bytes) {
  capacity.ensure(bytes, [this](std::size_t size) {
    result.reset();
    dy0.reset();
    dy.reset();
    dx.reset();
    y0.reset();
    x.reset();
    readback.reset();
    for (std::size_t slot = 0; slot < max_streams; ++slot) {
      device[slot].reset();
      host[slot].reset();
    }
    expected.reset();

    expected.emplace(max_streams * size);
    fill_random(expected->span(), slots_seed);
    for (std::size_t slot = 0; slot < max_streams; ++slot) {
      host[slot].emplace(size);
      device[slot].emplace(size);
    }
    readback.emplace(size);
    const std::size_t n = size / sizeof(float);
    x.emplace(size);
    y0.emplace(size);
    fill_random(floats(*x, n), x_seed);
    fill_random(floats(*y0, n), y_seed);
    dx.emplace(size);
    dy.emplace(size);
    dy0.emplace(size);
    upload(dx->ptr(), x->data(), n * sizeof(float));
    upload(dy0->ptr(), y0->data(), n * sizeof(float));
    result.emplace(size);
  });
}

const std::byte* OverlapBuffers::expected_slot(std::size_t slot) const {
  return expected->data() + slot * capacity.size();
}

std::span<const float> OverlapBuffers::x_host(std::size_t n) const { return floats(*x, n); }

std::span<const float> OverlapBuffers::y0_host(std::size_t n) const { return floats(*y0, n); }

} // namespace gpubench::bench
