#include "pin_check.hpp"

#include "cuda_error.hpp"
#include "host_bytes.hpp"
#include "random_fill.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

namespace gpubench::bench {
namespace {
constexpr unsigned char poison_byte = 0xA5;
constexpr std::uint64_t seed = 0x9199;

void to_device(const PinCheckBuffers& buffers, const void* host, CUstream stream) {
  GPUBENCH_CUDART(cudaMemsetAsync(buffers.device.as<void>(), poison_byte, buffers.bytes, stream));
  GPUBENCH_CUDART(cudaMemcpyAsync(buffers.device.as<void>(), host, buffers.bytes,
                                  cudaMemcpyHostToDevice, stream));
  GPUBENCH_CUDART(cudaStreamSynchronize(stream));
}

void from_device(const PinCheckBuffers& buffers, void* host, CUstream stream) {
  GPUBENCH_CUDART(cudaMemcpyAsync(host, buffers.device.as<void>(), buffers.bytes,
                                  cudaMemcpyDeviceToHost, stream));
  GPUBENCH_CUDART(cudaStreamSynchronize(stream));
}
} // namespace

PinCheckBuffers::PinCheckBuffers(std::size_t bytes, bool write_combined)
    : bytes(bytes), expected(bytes), device(bytes) {
  fill_random(expected.span(), seed);
  if (write_combined) {
    readback.emplace(bytes);
  }
}

std::optional<std::string> pinned_mismatch(const PinApi& api, void* pinned) {
  cudaPointerAttributes attributes{};
  GPUBENCH_CUDART(cudaPointerGetAttributes(&attributes, pinned));
  if (attributes.type != cudaMemoryTypeHost) {
    return fmt::format("{}: cudaPointerGetAttributes calls the memory type {}, not host "
                       "(page-locked) memory",
                       api.name(), static_cast<int>(attributes.type));
  }
  // cudaHostGetFlags answers only for memory cudaHostAlloc allocated, not registered memory.
  // Portable is not asked of it: under unified addressing every context reaches pinned memory
  // whatever its flags (the Driver API's Unified Addressing section), and in the default suite
  // the runtime reports 0x2 (mapped) for portable allocations of 4 KiB and 1 MiB made after
  // other families freed their pinned memory (results/h100/small_peers/same_card/;
  // tools/probes/host_flags_probe.cu asks when).
  if (!api.pins_existing_memory()) {
    const unsigned int asked = api.flags() & ~static_cast<unsigned int>(cudaHostAllocPortable);
    unsigned int flags = 0;
    GPUBENCH_CUDART(cudaHostGetFlags(&flags, pinned));
    if ((flags & asked) != asked) {
      return fmt::format("{}: cudaHostGetFlags reports {:#x}, without the flags {:#x} it was "
                         "pinned with",
                         api.name(), flags, asked);
    }
  }
  if (api.device_mapped()) {
    void* device = nullptr;
    GPUBENCH_CUDART(cudaHostGetDevicePointer(&device, pinned, 0));
    if (device == nullptr) {
      return fmt::format("{}: mapped memory has no device address", api.name());
    }
  }
  return std::nullopt;
}

std::optional<std::string> released_mismatch(const void* address) {
  cudaPointerAttributes attributes{};
  GPUBENCH_CUDART(cudaPointerGetAttributes(&attributes, address));
  if (attributes.type != cudaMemoryTypeUnregistered) {
    return fmt::format("unregistered memory: cudaPointerGetAttributes calls the memory type {}, "
                       "not unregistered",
                       static_cast<int>(attributes.type));
  }
  return std::nullopt;
}

std::optional<std::string> round_trip_mismatch(const PinApi& api, std::byte* pinned,
                                               PinCheckBuffers& buffers, CUstream stream) {
  const std::size_t bytes = buffers.bytes;
  parallel_copy(pinned, buffers.expected.data(), bytes);
  to_device(buffers, pinned, stream);
  parallel_fill(pinned, poison_byte, bytes);
  from_device(buffers, pinned, stream);
  const std::string where = api.name() + " round trip's";
  if (!buffers.readback) {
    return compare_bytes(pinned, buffers.expected.data(), bytes, where.c_str());
  }
  // Write-combined memory is read through the device: a CPU read of it is uncached.
  to_device(buffers, pinned, stream);
  from_device(buffers, buffers.readback->data(), stream);
  return compare_bytes(buffers.readback->data(), buffers.expected.data(), bytes, where.c_str());
}

} // namespace gpubench::bench
