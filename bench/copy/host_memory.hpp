#pragma once

#include <cuda.h>

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

namespace gpubench::bench {

// A host buffer of one of the kinds the copy family compares.
class HostBuffer {
public:
  HostBuffer() = default;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  HostBuffer(HostBuffer&&) = delete;
  HostBuffer& operator=(HostBuffer&&) = delete;
  virtual ~HostBuffer() = default;
  [[nodiscard]] virtual std::byte* data() const = 0;
  // The device's address for mapped memory; throws for memory that is not mapped.
  [[nodiscard]] virtual CUdeviceptr device_ptr() const;
};

struct HostBuffers {
  std::unique_ptr<HostBuffer> a;
  std::unique_ptr<HostBuffer> b;
};

// One kind of host memory: how it is allocated and what that implies for copying it.
struct HostMemoryKind {
  const char* name;
  bool page_locked;    // DMA straight from it; async copies do not wait on the host
  bool write_combined; // uncached for CPU reads: never read it on the CPU
  bool device_mapped;  // kernels can read and write it (zero-copy)
  // On the NUMA node farthest from the GPU, where every other kind is on the nearest (the
  // session binds the process there): what a buffer on the wrong socket costs.
  bool far_node;
  // `far_node` is where a far-node kind places its pages; the others ignore it.
  std::unique_ptr<HostBuffer> (*allocate)(std::size_t bytes, int far_node);
};

// pageable, pinned, pinned_wc, registered, registered_far.
[[nodiscard]] const std::vector<HostMemoryKind>& host_memory_kinds();
// The kind named `name`; throws std::logic_error for a name that is not one.
[[nodiscard]] const HostMemoryKind& host_memory_kind(std::string_view name);

} // namespace gpubench::bench
