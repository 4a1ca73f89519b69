#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace gpubench::bench {

// One way a program gets page-locked host memory, and how it gives it back: registering memory
// it already has (cudaHostRegister, cudaHostUnregister), or allocating pinned memory
// (cudaMallocHost, cudaHostAlloc with its flags; cudaFreeHost). Each is a small type; the
// measurement is the same for all.
class PinApi {
public:
  PinApi() = default;
  PinApi(const PinApi&) = delete;
  PinApi& operator=(const PinApi&) = delete;
  PinApi(PinApi&&) = delete;
  PinApi& operator=(PinApi&&) = delete;
  virtual ~PinApi() = default;

  // The second component of the family's names: register, malloc_host, host_alloc, ...
  [[nodiscard]] virtual std::string name() const = 0;
  // What giving the memory back is called: "unpin" where the memory stays the program's
  // (cudaHostUnregister), "free" where it goes with the pinning (cudaFreeHost).
  [[nodiscard]] virtual std::string release_name() const = 0;
  // Whether it pins memory the program already holds (malloc'd and touched), rather than
  // allocating its own.
  [[nodiscard]] virtual bool pins_existing_memory() const { return false; }
  // The flags it pins with: cudaHostGetFlags reports them, at least, for memory it allocated,
  // portable aside (pin_check.cpp).
  [[nodiscard]] virtual unsigned int flags() const = 0;
  // Write-combined memory is uncached for CPU reads: checks read it through the device.
  [[nodiscard]] virtual bool write_combined() const { return false; }
  // Mapped memory has a device address (cudaHostGetDevicePointer).
  [[nodiscard]] virtual bool device_mapped() const { return false; }

  // Page-locks `bytes` and returns the page-locked memory: `existing` itself where the API pins
  // memory the program holds, else memory it allocates (`existing` is null).
  [[nodiscard]] virtual void* pin(void* existing, std::size_t bytes) const = 0;
  // Releases what pin() returned; checked.
  virtual void release(void* pinned) const = 0;
  // The same, for a destructor: a failure is ignored, as every owner of a CUDA handle does.
  virtual void release_noexcept(void* pinned) const noexcept = 0;
};

// register, malloc_host, host_alloc, host_alloc_portable, host_alloc_mapped, host_alloc_wc.
[[nodiscard]] const std::vector<std::unique_ptr<PinApi>>& pin_apis();

} // namespace gpubench::bench
