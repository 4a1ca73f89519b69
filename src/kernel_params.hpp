#pragma once

#include <cuda.h>

#include <array>
#include <cstddef>
#include <cstring>
#include <span>
#include <vector>

namespace gpubench {

// Kernel arguments packed into one buffer the way the device ABI lays them out (each at its
// alignment), for cuLaunchKernel's `extra` path: CU_LAUNCH_PARAM_BUFFER_POINTER/_SIZE.
class PackedKernelParams {
public:
  template <typename T> PackedKernelParams& push(const T& value) {
    return push_bytes(std::as_bytes(std::span(&value, 1)), alignof(T));
  }

  // An argument given as raw bytes (a struct passed by value) with its device alignment.
  PackedKernelParams& push_bytes(std::span<const std::byte> value, std::size_t alignment) {
    const std::size_t offset = (bytes_.size() + alignment - 1) / alignment * alignment;
    bytes_.resize(offset + value.size());
    std::memcpy(bytes_.data() + offset, value.data(), value.size());
    return *this;
  }

  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return bytes_; }

  // The `extra` array for cuLaunchKernel; valid while this object lives and is not pushed to.
  [[nodiscard]] void** extra() {
    size_ = bytes_.size();
    extra_ = {CU_LAUNCH_PARAM_BUFFER_POINTER, bytes_.data(), CU_LAUNCH_PARAM_BUFFER_SIZE, &size_,
              CU_LAUNCH_PARAM_END};
    return extra_.data();
  }

private:
  std::vector<std::byte> bytes_;
  std::size_t size_ = 0;
  std::array<void*, 5> extra_{};
};

} // namespace gpubench
