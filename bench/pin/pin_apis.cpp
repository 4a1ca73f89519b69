#include "pin_apis.hpp"

#include "cuda_error.hpp"

#include <cuda_runtime_api.h>

namespace gpubench::bench {
namespace {

// cudaHostRegister of memory the program malloc'd and touched, as a library that receives a
// caller's buffer would do; cudaHostUnregister gives the pages back to the pager.
class Register : public PinApi {
public:
  std::string name() const override { return "register"; }
  std::string release_name() const override { return "unpin"; }
  bool pins_existing_memory() const override { return true; }
  unsigned int flags() const override { return cudaHostRegisterDefault; }
  void* pin(void* existing, std::size_t bytes) const override {
    GPUBENCH_CUDART(cudaHostRegister(existing, bytes, cudaHostRegisterDefault));
    return existing;
  }
  void release(void* pinned) const override { GPUBENCH_CUDART(cudaHostUnregister(pinned)); }
  void release_noexcept(void* pinned) const noexcept override {
    static_cast<void>(cudaHostUnregister(pinned));
  }
};

// Pinned memory the runtime allocates; cudaFreeHost frees it.
class Allocate : public PinApi {
public:
  std::string release_name() const override { return "free"; }
  void release(void* pinned) const override { GPUBENCH_CUDART(cudaFreeHost(pinned)); }
  void release_noexcept(void* pinned) const noexcept override {
    static_cast<void>(cudaFreeHost(pinned));
  }
};

class MallocHost : public Allocate {
public:
  std::string name() const override { return "malloc_host"; }
  unsigned int flags() const override { return cudaHostAllocDefault; }
  void* pin(void*, std::size_t bytes) const override {
    void* pinned = nullptr;
    GPUBENCH_CUDART(cudaMallocHost(&pinned, bytes));
    return pinned;
  }
};

// cudaHostAlloc with one of its flags: `suffix` names it ("" for the default).
class HostAlloc : public Allocate {
public:
  HostAlloc(const char* suffix, unsigned int flags) : suffix_(suffix), flags_(flags) {}
  std::string name() const override { return std::string("host_alloc") + suffix_; }
  unsigned int flags() const override { return flags_; }
  bool write_combined() const override { return (flags_ & cudaHostAllocWriteCombined) != 0; }
  bool device_mapped() const override { return (flags_ & cudaHostAllocMapped) != 0; }
  void* pin(void*, std::size_t bytes) const override {
    void* pinned = nullptr;
    GPUBENCH_CUDART(cudaHostAlloc(&pinned, bytes, flags_));
    return pinned;
  }

private:
  const char* suffix_;
  unsigned int flags_;
};

std::vector<std::unique_ptr<PinApi>> make_apis() {
  std::vector<std::unique_ptr<PinApi>> apis;
  apis.push_back(std::make_unique<Register>());
  apis.push_back(std::make_unique<MallocHost>());
  apis.push_back(std::make_unique<HostAlloc>("", cudaHostAllocDefault));
  apis.push_back(std::make_unique<HostAlloc>("_portable", cudaHostAllocPortable));
  apis.push_back(std::make_unique<HostAlloc>("_mapped", cudaHostAllocMapped));
  apis.push_back(std::make_unique<HostAlloc>("_wc", cudaHostAllocWriteCombined));
  return apis;
}

} // namespace

const std::vector<std::unique_ptr<PinApi>>& pin_apis() {
  static const std::vector<std::unique_ptr<PinApi>> apis = make_apis();
  return apis;
}

} // namespace gpubench::bench
