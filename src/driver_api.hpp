#pragma once

#include "cuda_error.hpp"

#include <cuda.h>

namespace gpubench {

// Every Driver API function gpubench calls. The list is expanded twice: into the table's members
// and into the loader, so adding a function is one line here.
#define GPUBENCH_DRIVER_FUNCTIONS(X)                                                               \
  X(cuGetErrorName)                                                                                \
  X(cuGetErrorString)                                                                              \
  X(cuInit)                                                                                        \
  X(cuDriverGetVersion)                                                                            \
  X(cuDeviceGetCount)                                                                              \
  X(cuDeviceGet)                                                                                   \
  X(cuDeviceGetName)                                                                               \
  X(cuDeviceGetUuid)                                                                               \
  X(cuDeviceGetAttribute)                                                                          \
  X(cuDeviceTotalMem)                                                                              \
  X(cuDeviceGetPCIBusId)                                                                           \
  X(cuDevicePrimaryCtxRetain)                                                                      \
  X(cuDevicePrimaryCtxRelease)                                                                     \
  X(cuCtxSetCurrent)                                                                               \
  X(cuCtxSynchronize)                                                                              \
  X(cuModuleLoadData)                                                                              \
  X(cuModuleUnload)                                                                                \
  X(cuModuleGetFunction)                                                                           \
  X(cuLibraryLoadData)                                                                             \
  X(cuLibraryUnload)                                                                               \
  X(cuLibraryGetKernel)                                                                            \
  X(cuKernelGetFunction)                                                                           \
  X(cuFuncGetAttribute)                                                                            \
  X(cuLaunchKernel)                                                                                \
  X(cuLaunchKernelEx)                                                                              \
  X(cuMemGetInfo)                                                                                  \
  X(cuMemAlloc)                                                                                    \
  X(cuMemFree)                                                                                     \
  X(cuMemHostAlloc)                                                                                \
  X(cuMemFreeHost)                                                                                 \
  X(cuMemHostRegister)                                                                             \
  X(cuMemHostUnregister)                                                                           \
  X(cuMemHostGetDevicePointer)                                                                     \
  X(cuMemcpyHtoD)                                                                                  \
  X(cuMemcpyDtoH)                                                                                  \
  X(cuMemcpyDtoD)                                                                                  \
  X(cuMemcpyHtoDAsync)                                                                             \
  X(cuMemcpyDtoHAsync)                                                                             \
  X(cuMemcpyDtoDAsync)                                                                             \
  X(cuMemsetD8Async)                                                                               \
  X(cuMemsetD32Async)                                                                              \
  X(cuStreamCreate)                                                                                \
  X(cuStreamDestroy)                                                                               \
  X(cuStreamSynchronize)                                                                           \
  X(cuStreamBeginCapture)                                                                          \
  X(cuStreamEndCapture)                                                                            \
  X(cuGraphInstantiateWithFlags)                                                                   \
  X(cuGraphLaunch)                                                                                 \
  X(cuGraphDestroy)                                                                                \
  X(cuGraphExecDestroy)                                                                            \
  X(cuEventCreate)                                                                                 \
  X(cuEventDestroy)                                                                                \
  X(cuEventRecord)                                                                                 \
  X(cuEventSynchronize)                                                                            \
  X(cuEventElapsedTime)

// Driver entry points obtained from the CUDA runtime (cudaGetDriverEntryPointByVersion) instead
// of linking libcuda.so.1: a binary linked to the driver does not even start on a machine
// without one, and gpubench must start there to list its benchmarks and to say what is missing.
// A function this driver lacks stays null; GPUBENCH_CU turns a call to it into a CudaError.
struct DriverApi {
#define GPUBENCH_DECLARE_MEMBER(fn) decltype(&::fn) fn = nullptr;
  GPUBENCH_DRIVER_FUNCTIONS(GPUBENCH_DECLARE_MEMBER)
#undef GPUBENCH_DECLARE_MEMBER
};

// Loads the table and calls cuInit(0) once; throws CudaError when there is no usable driver.
const DriverApi& driver_api();

// The table if driver_api() already succeeded, else null: lets error formatting ask the driver
// for error names without recursing into a failing load.
const DriverApi* loaded_driver_api() noexcept;

// Returns `fn`, or throws a CudaError naming `name` when this driver does not provide it.
template <typename Fn> Fn require_driver_function(Fn fn, const char* name) {
  if (fn == nullptr) {
    throw CudaError(name, "CUDA_ERROR_NOT_FOUND", "this driver does not provide the function",
                    CUDA_ERROR_NOT_FOUND);
  }
  return fn;
}

} // namespace gpubench
