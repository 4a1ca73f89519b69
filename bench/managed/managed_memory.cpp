#include "managed_memory.hpp"

#include "cuda_error.hpp"
#include "driver_api.hpp"
#include "parallel.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

namespace gpubench::bench {

namespace detail {
void ManagedRelease::operator()(void* ptr) const noexcept { cudaFree(ptr); }
} // namespace detail

namespace {

int attribute(cudaDeviceAttr attribute, int ordinal) {
  int value = 0;
  GPUBENCH_CUDART(cudaDeviceGetAttribute(&value, attribute, ordinal));
  return value;
}

cudaMemLocation host_location() {
  cudaMemLocation location{};
  location.type = cudaMemLocationTypeHost;
  location.id = 0; // ignored for the host
  return location;
}

// The host's page: the unit its writes fault and invalidate in.
constexpr std::size_t host_page_bytes = 4096;

} // namespace

const char* advice_name(ManagedAdvice advice) noexcept {
  constexpr const char* names[] = {"none", "read_mostly", "preferred_host"};
  return names[static_cast<int>(advice)];
}

std::optional<std::string> managed_unsupported(int ordinal) {
  if (attribute(cudaDevAttrManagedMemory, ordinal) == 0) {
    return "the device cannot allocate managed memory on this system (cudaDevAttrManagedMemory "
           "is 0)";
  }
  if (attribute(cudaDevAttrConcurrentManagedAccess, ordinal) == 0) {
    return "the device cannot access managed memory concurrently with the host "
           "(cudaDevAttrConcurrentManagedAccess is 0): prefetches fail and a launch migrates "
           "every page before its kernel runs";
  }
  return std::nullopt;
}

std::optional<std::string> host_touch_unsupported(int ordinal) {
  if (attribute(cudaDevAttrDirectManagedMemAccessFromHost, ordinal) != 0) {
    return "the host reads the device's managed memory in place "
           "(cudaDevAttrDirectManagedMemAccessFromHost is 1): no page migrates";
  }
  return std::nullopt;
}

ManagedBuffer::ManagedBuffer(std::size_t bytes) : bytes_(bytes) {
  void* ptr = nullptr;
  GPUBENCH_CUDART(cudaMallocManaged(&ptr, bytes == 0 ? 1 : bytes, cudaMemAttachGlobal));
  handle_ = decltype(handle_)(ptr);
}

void ManagedBuffer::prefetch_to_device(int ordinal, CUstream stream) const {
  cudaMemLocation location{};
  location.type = cudaMemLocationTypeDevice;
  location.id = ordinal;
  GPUBENCH_CUDART(cudaMemPrefetchAsync(handle_.get(), bytes_, location, 0, stream));
}

void ManagedBuffer::prefetch_to_host(CUstream stream) const {
  GPUBENCH_CUDART(cudaMemPrefetchAsync(handle_.get(), bytes_, host_location(), 0, stream));
}

void ManagedBuffer::advise(ManagedAdvice advice) const {
  switch (advice) {
  case ManagedAdvice::none:
    return;
  case ManagedAdvice::read_mostly:
    GPUBENCH_CUDART(
        cudaMemAdvise(handle_.get(), bytes_, cudaMemAdviseSetReadMostly, host_location()));
    return;
  case ManagedAdvice::preferred_host:
    GPUBENCH_CUDART(
        cudaMemAdvise(handle_.get(), bytes_, cudaMemAdviseSetPreferredLocation, host_location()));
    return;
  }
}

void ManagedBuffer::return_to_host(CUstream stream) const {
  prefetch_to_host(stream);
  GPUBENCH_CU(cuStreamSynchronize, stream);
  auto* const bytes = static_cast<volatile unsigned char*>(handle_.get());
  parallel_chunks(bytes_, [bytes](std::size_t begin, std::size_t end) {
    // The first byte of each page that starts in [begin, end).
    for (std::size_t page = (begin + host_page_bytes - 1) / host_page_bytes * host_page_bytes;
         page < end; page += host_page_bytes) {
      bytes[page] = bytes[page];
    }
  });
}

} // namespace gpubench::bench
