#include "context.hpp"

#include "driver_api.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace gpubench {

int device_count() {
  int count = 0;
  GPUBENCH_CU(cuDeviceGetCount, &count);
  return count;
}

CUdevice device_at(int ordinal) {
  const int count = device_count();
  if (ordinal < 0 || ordinal >= count) {
    throw std::out_of_range(fmt::format("device {} does not exist: {} CUDA device{} found{}",
                                        ordinal, count, count == 1 ? "" : "s",
                                        count > 0 ? fmt::format(" (0..{})", count - 1) : ""));
  }
  CUdevice device = 0;
  GPUBENCH_CU(cuDeviceGet, &device, ordinal);
  return device;
}

PrimaryContext::PrimaryContext(CUdevice device) : device_(device) {
  GPUBENCH_CU(cuDevicePrimaryCtxRetain, &context_, device_);
  try {
    make_current();
  } catch (...) {
    driver_api().cuDevicePrimaryCtxRelease(device_);
    throw;
  }
}

PrimaryContext::~PrimaryContext() { driver_api().cuDevicePrimaryCtxRelease(device_); }

void PrimaryContext::make_current() const { GPUBENCH_CU(cuCtxSetCurrent, context_); }

void PrimaryContext::synchronize() const { GPUBENCH_CU(cuCtxSynchronize); }

} // namespace gpubench
