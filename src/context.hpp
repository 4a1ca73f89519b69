#pragma once

#include <cuda.h>

namespace gpubench {

// Number of CUDA devices the driver sees; throws CudaError without a driver or device.
[[nodiscard]] int device_count();

// Resolves a device ordinal, throwing std::out_of_range with a one-line message naming the
// ordinal and the device count when it does not exist.
[[nodiscard]] CUdevice device_at(int ordinal);

// The device's primary context, retained and made current for the calling thread. The runtime
// API uses the same context, so runtime and driver launches share memory and streams.
class PrimaryContext {
public:
  explicit PrimaryContext(CUdevice device);
  PrimaryContext(const PrimaryContext&) = delete;
  PrimaryContext& operator=(const PrimaryContext&) = delete;
  PrimaryContext(PrimaryContext&&) = delete;
  PrimaryContext& operator=(PrimaryContext&&) = delete;
  ~PrimaryContext();

  [[nodiscard]] CUdevice device() const noexcept { return device_; }
  [[nodiscard]] CUcontext get() const noexcept { return context_; }
  void make_current() const;
  void synchronize() const;

private:
  CUdevice device_;
  CUcontext context_ = nullptr;
};

} // namespace gpubench
