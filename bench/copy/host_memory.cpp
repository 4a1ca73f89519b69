#include "host_memory.hpp"

#include "driver_api.hpp"
#include "memory.hpp"
#include "numa.hpp"
#include "unique_handle.hpp"

#include <stdexcept>

namespace gpubench::bench {

CUdeviceptr HostBuffer::device_ptr() const {
  throw std::logic_error("this host memory is not mapped into the device's address space");
}

namespace {

template <typename Buffer> class HostBufferOf : public HostBuffer {
public:
  template <typename... Args> explicit HostBufferOf(Args&&... args) : buffer_(args...) {}
  [[nodiscard]] std::byte* data() const override { return buffer_.data(); }
  [[nodiscard]] CUdeviceptr device_ptr() const override {
    if constexpr (requires { buffer_.device_ptr(); }) {
      return buffer_.device_ptr();
    } else {
      return HostBuffer::device_ptr();
    }
  }

private:
  Buffer buffer_;
};

// Memory on NUMA node `node`, page-locked after the fact as `registered` is.
class NodeRegisteredBuffer : public HostBuffer {
public:
  NodeRegisteredBuffer(std::size_t bytes, int node) : memory_(bytes, node) {
    GPUBENCH_CU(cuMemHostRegister, memory_.data(), memory_.bytes(), 0);
    registration_ = decltype(registration_)(memory_.data());
  }
  [[nodiscard]] std::byte* data() const override { return memory_.data(); }

private:
  NodeBoundMemory memory_;
  // Declared after the memory, so the registration is released before the memory is unmapped.
  UniqueHandle<void*, detail::UnregisterRelease> registration_;
};

} // namespace

const std::vector<HostMemoryKind>& host_memory_kinds() {
  static const std::vector<HostMemoryKind> kinds{
      {"pageable", false, false, false, false,
       [](std::size_t bytes, int) -> std::unique_ptr<HostBuffer> {
         return std::make_unique<HostBufferOf<PageableHostBuffer>>(bytes);
       }},
      {"pinned", true, false, true, false,
       [](std::size_t bytes, int) -> std::unique_ptr<HostBuffer> {
         return std::make_unique<HostBufferOf<PinnedHostBuffer>>(
             bytes, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
       }},
      {"pinned_wc", true, true, false, false,
       [](std::size_t bytes, int) -> std::unique_ptr<HostBuffer> {
         return std::make_unique<HostBufferOf<PinnedHostBuffer>>(
             bytes, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_WRITECOMBINED);
       }},
      {"registered", true, false, false, false,
       [](std::size_t bytes, int) -> std::unique_ptr<HostBuffer> {
         return std::make_unique<HostBufferOf<RegisteredHostBuffer>>(bytes);
       }},
      {"registered_far", true, false, false, true,
       [](std::size_t bytes, int far_node) -> std::unique_ptr<HostBuffer> {
         return std::make_unique<NodeRegisteredBuffer>(bytes, far_node);
       }},
  };
  return kinds;
}

const HostMemoryKind& host_memory_kind(std::string_view name) {
  for (const HostMemoryKind& kind : host_memory_kinds()) {
    if (kind.name == name) {
      return kind;
    }
  }
  throw std::logic_error("no host memory kind of that name");
}

} // namespace gpubench::bench
