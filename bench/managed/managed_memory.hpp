#pragma once

#include "unique_handle.hpp"

#include <cuda.h>

#include <cstddef>
#include <optional>
#include <string>

namespace gpubench::bench {

namespace detail {
struct ManagedRelease {
  void operator()(void* ptr) const noexcept;
};
} // namespace detail

// The advice a buffer is given before a kernel touches it (cudaMemAdvise), the <advice> of the
// names: `none`; `read_mostly` (cudaMemAdviseSetReadMostly: a read makes a read-only copy where
// it runs, the host's stays); `preferred_host` (cudaMemAdviseSetPreferredLocation on the host:
// pages stay in host memory and the GPU maps them where they lie rather than migrate them).
enum class ManagedAdvice { none, read_mostly, preferred_host };

[[nodiscard]] const char* advice_name(ManagedAdvice advice) noexcept;

// Why managed memory cannot be measured on device `ordinal`, if it cannot: a device without
// managed memory on this system (cudaDevAttrManagedMemory), or one that cannot access it
// concurrently with the host (cudaDevAttrConcurrentManagedAccess: Windows, before Pascal, some
// virtual machines), where prefetches fail and a launch migrates every page before the kernel
// runs, so there is no fault-driven migration to time.
[[nodiscard]] std::optional<std::string> managed_unsupported(int ordinal);

// Why the host's touch of device-resident pages cannot be measured, if it cannot: where the
// host reads managed memory on the device in place (cudaDevAttrDirectManagedMemAccessFromHost,
// hardware-coherent platforms), nothing migrates.
[[nodiscard]] std::optional<std::string> host_touch_unsupported(int ordinal);

// Managed memory from cudaMallocManaged, attached to every stream, populated where it is first
// touched.
class ManagedBuffer {
public:
  explicit ManagedBuffer(std::size_t bytes);
  [[nodiscard]] std::byte* data() const noexcept { return static_cast<std::byte*>(handle_.get()); }
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }

  // Enqueues cudaMemPrefetchAsync of the whole buffer to device `ordinal`, or to the host.
  void prefetch_to_device(int ordinal, CUstream stream) const;
  void prefetch_to_host(CUstream stream) const;
  // Gives the whole buffer `advice` (none gives nothing).
  void advise(ManagedAdvice advice) const;
  // Makes the host the only holder of every page: a prefetch to the host, waited for, then a
  // write of each page's first byte with the value it holds. The write is what drops the
  // device's read-only copies of read-mostly pages, which a prefetch to the host keeps; each is
  // a fault the driver handles on the host, so every hardware thread writes its own pages.
  void return_to_host(CUstream stream) const;

private:
  UniqueHandle<void*, detail::ManagedRelease> handle_;
  std::size_t bytes_;
};

} // namespace gpubench::bench
