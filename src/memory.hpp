#pragma once

#include "unique_handle.hpp"

#include <cuda.h>

#include <cstddef>
#include <memory>
#include <span>

namespace gpubench {

// Device memory the current context could still allocate (cuMemGetInfo).
[[nodiscard]] std::size_t free_device_bytes();

// The machine's physical memory (sysconf's pages times their size).
[[nodiscard]] std::size_t host_memory_bytes();

// Copies `bytes` from host memory at `source` to device memory at `destination` in the current
// context, and returns once they are there, for a kernel or copy on any stream to read.
// cuMemcpyHtoD alone is not enough: from pageable memory it returns once its bytes are staged,
// while the DMA to the device may still run (CUDA's documented sync behaviour), and work on a
// non-blocking stream, as every gpubench stream is, is not ordered after it.
void upload(CUdeviceptr destination, const void* source, std::size_t bytes);

namespace detail {
struct DeviceRelease {
  void operator()(CUdeviceptr ptr) const noexcept;
};
struct PinnedRelease {
  void operator()(void* ptr) const noexcept;
};
struct UnregisterRelease {
  void operator()(void* ptr) const noexcept;
};
struct PageableRelease {
  void operator()(std::byte* ptr) const noexcept;
};
} // namespace detail

// Device memory from cuMemAlloc.
class DeviceBuffer {
public:
  explicit DeviceBuffer(std::size_t bytes);
  [[nodiscard]] CUdeviceptr ptr() const noexcept { return handle_.get(); }
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }
  template <typename T> [[nodiscard]] T* as() const noexcept {
    return reinterpret_cast<T*>(handle_.get());
  }

private:
  UniqueHandle<CUdeviceptr, detail::DeviceRelease> handle_;
  std::size_t bytes_;
};

// Ordinary host memory, touched on allocation so that first-touch page faults are not timed, by
// every hardware thread at once (parallel_fill) so that they are not taken one page at a time.
class PageableHostBuffer {
public:
  explicit PageableHostBuffer(std::size_t bytes);
  [[nodiscard]] std::byte* data() const noexcept { return memory_.get(); }
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }
  [[nodiscard]] std::span<std::byte> span() const noexcept { return {data(), bytes_}; }

private:
  std::unique_ptr<std::byte, detail::PageableRelease> memory_;
  std::size_t bytes_;
};

// Page-locked host memory from cuMemHostAlloc; `flags` selects portable, write-combined or
// device-mapped memory (CU_MEMHOSTALLOC_*).
class PinnedHostBuffer {
public:
  explicit PinnedHostBuffer(std::size_t bytes, unsigned int flags = 0);
  [[nodiscard]] std::byte* data() const noexcept { return static_cast<std::byte*>(handle_.get()); }
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }
  [[nodiscard]] std::span<std::byte> span() const noexcept { return {data(), bytes_}; }
  // The device's address for this memory (needs CU_MEMHOSTALLOC_DEVICEMAP).
  [[nodiscard]] CUdeviceptr device_ptr() const;

private:
  UniqueHandle<void*, detail::PinnedRelease> handle_;
  std::size_t bytes_;
};

// Pageable memory page-locked after the fact with cuMemHostRegister, as a library that receives
// a caller's buffer would do.
class RegisteredHostBuffer {
public:
  explicit RegisteredHostBuffer(std::size_t bytes);
  [[nodiscard]] std::byte* data() const noexcept { return memory_.data(); }
  [[nodiscard]] std::size_t bytes() const noexcept { return memory_.bytes(); }
  [[nodiscard]] std::span<std::byte> span() const noexcept { return memory_.span(); }

private:
  PageableHostBuffer memory_;
  UniqueHandle<void*, detail::UnregisterRelease> registration_;
};

} // namespace gpubench
