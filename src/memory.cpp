#include "memory.hpp"

#include "driver_api.hpp"
#include "host_bytes.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <new>

#include <unistd.h>

namespace gpubench {
namespace detail {
void DeviceRelease::operator()(CUdeviceptr ptr) const noexcept { driver_api().cuMemFree(ptr); }
void PinnedRelease::operator()(void* ptr) const noexcept { driver_api().cuMemFreeHost(ptr); }
void UnregisterRelease::operator()(void* ptr) const noexcept {
  driver_api().cuMemHostUnregister(ptr);
}
void PageableRelease::operator()(std::byte* ptr) const noexcept { std::free(ptr); }
} // namespace detail

namespace {
// Page alignment lets cuMemHostRegister lock exactly the buffer and keeps copy engines on
// their fast path for every kind of host memory alike.
constexpr std::size_t page_bytes = 4096;

std::size_t round_up_to_page(std::size_t bytes) {
  return (bytes + page_bytes - 1) / page_bytes * page_bytes;
}
} // namespace

std::size_t free_device_bytes() {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  GPUBENCH_CU(cuMemGetInfo, &free_bytes, &total_bytes);
  return free_bytes;
}

std::size_t host_memory_bytes() {
  return static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) *
         static_cast<std::size_t>(sysconf(_SC_PAGE_SIZE));
}

void upload(CUdeviceptr destination, const void* source, std::size_t bytes) {
  GPUBENCH_CU(cuMemcpyHtoD, destination, source, bytes);
  GPUBENCH_CU(cuCtxSynchronize);
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  CUdeviceptr ptr = 0;
  GPUBENCH_CU(cuMemAlloc, &ptr, bytes == 0 ? 1 : bytes);
  handle_ = decltype(handle_)(ptr);
}

PageableHostBuffer::PageableHostBuffer(std::size_t bytes) : bytes_(bytes) {
  auto* memory = static_cast<std::byte*>(std::aligned_alloc(page_bytes, round_up_to_page(bytes)));
  if (memory == nullptr) {
    throw std::runtime_error(fmt::format("host allocation of {} bytes failed", bytes));
  }
  memory_.reset(memory);
  parallel_fill(memory, 0, bytes);
}

PinnedHostBuffer::PinnedHostBuffer(std::size_t bytes, unsigned int flags) : bytes_(bytes) {
  void* ptr = nullptr;
  GPUBENCH_CU(cuMemHostAlloc, &ptr, bytes == 0 ? 1 : bytes, flags);
  handle_ = decltype(handle_)(ptr);
}

CUdeviceptr PinnedHostBuffer::device_ptr() const {
  CUdeviceptr ptr = 0;
  GPUBENCH_CU(cuMemHostGetDevicePointer, &ptr, handle_.get(), 0);
  return ptr;
}

RegisteredHostBuffer::RegisteredHostBuffer(std::size_t bytes)
    : memory_(round_up_to_page(bytes == 0 ? 1 : bytes)) {
  GPUBENCH_CU(cuMemHostRegister, memory_.data(), memory_.bytes(), 0);
  registration_ = decltype(registration_)(memory_.data());
}

} // namespace gpubench
