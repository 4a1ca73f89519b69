#pragma once

#include "capacity.hpp"
#include "host_memory.hpp"
#include "memory.hpp"

#include <cuda.h>

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace gpubench::bench {

class Session;
struct CopyBuffers;

// One end of a copy: device memory, or host memory of one kind.
class Place {
public:
  static Place device(const DeviceBuffer& buffer) { return Place(buffer.ptr(), nullptr, nullptr); }
  static Place host(const HostBuffer& buffer, const HostMemoryKind& kind) {
    return Place(0, &buffer, &kind);
  }

  [[nodiscard]] bool on_device() const noexcept { return host_ == nullptr; }
  [[nodiscard]] CUdeviceptr device_ptr() const noexcept { return device_; }
  [[nodiscard]] std::byte* host_data() const { return host_->data(); }
  // The device's address of mapped host memory, or of device memory.
  [[nodiscard]] CUdeviceptr mapped_ptr() const { return on_device() ? device_ : host_->device_ptr(); }
  [[nodiscard]] const HostMemoryKind* kind() const noexcept { return kind_; }

  // The random bytes every copy must deliver, `bytes` of them.
  void fill_expected(const CopyBuffers& buffers, std::size_t bytes, CUstream stream) const;
  // A pattern no copy produces, so an unwritten destination shows.
  void poison(std::size_t bytes, CUstream stream) const;
  // Where the first `bytes` differ from the expected bytes, if they do (waits for the device).
  [[nodiscard]] std::optional<std::string> check(const CopyBuffers& buffers, std::size_t bytes,
                                                 const char* where) const;

private:
  Place(CUdeviceptr device, const HostBuffer* host, const HostMemoryKind* kind)
      : device_(device), host_(host), kind_(kind) {}
  CUdeviceptr device_;
  const HostBuffer* host_;
  const HostMemoryKind* kind_;
};

// The copy family's buffers, for the largest size run so far (smaller sizes use a prefix).
// `expected` holds the random bytes every copy must deliver; the CPU never reads
// write-combined memory (it is uncached and reads crawl), so checks go through `readback`.
struct CopyBuffers {
  explicit CopyBuffers(Session& session);

  // Grows every buffer to `bytes` when it is smaller.
  void ensure_capacity(std::size_t bytes);
  // The two host buffers of `kind` (a copy's own, and the second direction's for bidir).
  HostBuffers& host(const HostMemoryKind& kind);

  Capacity capacity;
  std::optional<PageableHostBuffer> expected;
  std::optional<DeviceBuffer> device_expected; // sources on the device are filled from here
  std::optional<PinnedHostBuffer> readback;
  std::optional<DeviceBuffer> device_a;
  std::optional<DeviceBuffer> device_b;
  std::optional<DeviceBuffer> device_check;
  std::map<std::string, std::unique_ptr<HostBuffers>> host_buffers;
  // The NUMA node farthest from the session's GPU that holds memory, where a far-node kind's
  // buffers go; none on a host of one such node or for a GPU the driver places on none.
  std::optional<int> far_node;
};

// Why copies of `bytes` cannot run here, if they cannot: four device buffers and, on the host,
// the expected bytes, a readback and two buffers of the size, for each of `devices` GPUs copying
// at once; `held_bytes` is what the family's buffers already hold.
[[nodiscard]] std::optional<std::string> copy_room(std::size_t bytes, std::size_t held_bytes,
                                                   std::size_t devices = 1);

} // namespace gpubench::bench
