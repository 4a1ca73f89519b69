#include "copy_buffers.hpp"

#include "driver_api.hpp"
#include "host_bytes.hpp"
#include "memory.hpp"
#include "numa.hpp"
#include "random_fill.hpp"
#include "room.hpp"
#include "session.hpp"
#include "sizes.hpp"

#include <fmt/format.h>

namespace gpubench::bench {
namespace {
constexpr unsigned char poison_byte = 0xA5;
} // namespace

void Place::fill_expected(const CopyBuffers& buffers, std::size_t bytes, CUstream stream) const {
  if (on_device()) {
    GPUBENCH_CU(cuMemcpyDtoDAsync, device_, buffers.device_expected->ptr(), bytes, stream);
  } else {
    parallel_copy(host_data(), buffers.expected->data(), bytes);
  }
}

void Place::poison(std::size_t bytes, CUstream stream) const {
  if (on_device()) {
    GPUBENCH_CU(cuMemsetD8Async, device_, poison_byte, bytes, stream);
  } else {
    parallel_fill(host_data(), poison_byte, bytes);
  }
}

std::optional<std::string> Place::check(const CopyBuffers& buffers, std::size_t bytes,
                                        const char* where) const {
  const std::byte* expected = buffers.expected->data();
  if (!on_device() && !kind_->write_combined) {
    return compare_bytes(host_data(), expected, bytes, where);
  }
  CUdeviceptr source = device_;
  if (!on_device()) {
    GPUBENCH_CU(cuMemcpyHtoD, buffers.device_check->ptr(), host_data(), bytes);
    source = buffers.device_check->ptr();
  }
  GPUBENCH_CU(cuMemcpyDtoH, buffers.readback->data(), source, bytes);
  return compare_bytes(buffers.readback->data(), expected, bytes, where);
}

CopyBuffers::CopyBuffers(Session& session)
    : far_node(farthest_memory_node(session.device().host_numa_node)) {}

void CopyBuffers::ensure_capacity(std::size_t bytes) {
  capacity.ensure(bytes, [this](std::size_t size) {
    host_buffers.clear();
    device_a.reset();
    device_b.reset();
    device_check.reset();
    readback.reset();
    expected.reset();
    device_expected.reset();
    expected.emplace(size);
    fill_random(expected->span(), 0xC0FFEE);
    device_expected.emplace(size);
    upload(device_expected->ptr(), expected->data(), size);
    readback.emplace(size);
    device_a.emplace(size);
    device_b.emplace(size);
    device_check.emplace(size);
  });
}

HostBuffers& CopyBuffers::host(const HostMemoryKind& kind) {
  auto& slot = host_buffers[kind.name];
  if (!slot) {
    // Each kind used keeps its two buffers of the capacity. Where one more pair, beside them and
    // the expected bytes and readback, would take more than half the host's memory (the most
    // does_not_fit allows one kind), the other kinds' pairs go first: the kernel's OOM killer,
    // not an error, would answer pageable memory the host does not have.
    const std::size_t pairs = host_buffers.size(); // with this kind's
    if ((2 * pairs + 2) * capacity.size() > host_memory_bytes() / 2) {
      std::erase_if(host_buffers, [&](const auto& held) { return held.first != kind.name; });
    }
    slot = std::make_unique<HostBuffers>(
        HostBuffers{kind.allocate(capacity.size(), far_node.value_or(-1)),
                    kind.allocate(capacity.size(), far_node.value_or(-1))});
  }
  return *slot;
}

std::optional<std::string> copy_room(std::size_t bytes, std::size_t held_bytes,
                                     std::size_t devices) {
  return room_for(fmt::format("{} copies", format_size(bytes)), bytes, held_bytes,
                  {.device = 4, .host = 4 * devices});
}

} // namespace gpubench::bench
