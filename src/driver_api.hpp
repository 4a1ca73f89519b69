#pragma once

#include "cuda_error.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>

namespace gpubench {

// Every Driver API function gpubench calls, with the CUDA version whose ABI the call sites use
// (cudaTypedefs.h's PFN_<name>_v<version>). The version matters: asked for CUDA 13.0's
// "cuCtxSynchronize" the driver hands out cuCtxSynchronize_v2, which takes a context, while
// cuda.h's cuCtxSynchronize takes none. The list is expanded into the table's members and into
// the loader, so adding a function is one line here.
#define GPUBENCH_DRIVER_FUNCTIONS(X)                                                               \
  X(cuGetErrorName, 6000)                                                                          \
  X(cuGetErrorString, 6000)                                                                        \
  X(cuInit, 2000)                                                                                  \
  X(cuDriverGetVersion, 2020)                                                                      \
  X(cuDeviceGetCount, 2000)                                                                        \
  X(cuDeviceGet, 2000)                                                                             \
  X(cuDeviceGetName, 2000)                                                                         \
  X(cuDeviceGetUuid, 11040)                                                                        \
  X(cuDeviceGetAttribute, 2000)                                                                    \
  X(cuDeviceTotalMem, 3020)                                                                        \
  X(cuDeviceGetPCIBusId, 4010)                                                                     \
  X(cuDevicePrimaryCtxRetain, 7000)                                                                \
  X(cuDevicePrimaryCtxRelease, 11000)                                                              \
  X(cuCtxSetCurrent, 4000)                                                                         \
  X(cuCtxGetCurrent, 4000)                                                                         \
  X(cuCtxSynchronize, 2000)                                                                        \
  X(cuDeviceCanAccessPeer, 4000)                                                                   \
  X(cuDeviceGetP2PAttribute, 8000)                                                                 \
  X(cuCtxEnablePeerAccess, 4000)                                                                   \
  X(cuModuleLoadData, 2000)                                                                        \
  X(cuModuleUnload, 2000)                                                                          \
  X(cuModuleGetFunction, 2000)                                                                     \
  X(cuModuleGetGlobal, 3020)                                                                       \
  X(cuModuleGetLoadingMode, 11070)                                                                 \
  X(cuFuncGetModule, 11000)                                                                        \
  X(cuLibraryLoadData, 12000)                                                                      \
  X(cuLibraryUnload, 12000)                                                                        \
  X(cuLibraryGetKernel, 12000)                                                                     \
  X(cuKernelGetFunction, 12000)                                                                    \
  X(cuFuncGetAttribute, 2020)                                                                      \
  X(cuFuncSetAttribute, 9000)                                                                      \
  X(cuLaunchKernel, 4000)                                                                          \
  X(cuLaunchKernelEx, 11060)                                                                       \
  X(cuMemGetInfo, 3020)                                                                            \
  X(cuMemAlloc, 3020)                                                                              \
  X(cuMemFree, 3020)                                                                               \
  X(cuMemHostAlloc, 2020)                                                                          \
  X(cuMemFreeHost, 2000)                                                                           \
  X(cuMemHostRegister, 6050)                                                                       \
  X(cuMemHostUnregister, 4000)                                                                     \
  X(cuMemHostGetDevicePointer, 3020)                                                               \
  X(cuMemcpyHtoD, 3020)                                                                            \
  X(cuMemcpyDtoH, 3020)                                                                            \
  X(cuMemcpyDtoD, 3020)                                                                            \
  X(cuMemcpyHtoDAsync, 3020)                                                                       \
  X(cuMemcpyDtoHAsync, 3020)                                                                       \
  X(cuMemcpyDtoDAsync, 3020)                                                                       \
  X(cuMemcpy2DAsync, 3020)                                                                         \
  X(cuMemcpyPeerAsync, 4000)                                                                       \
  X(cuMemsetD8Async, 3020)                                                                         \
  X(cuMemsetD32Async, 3020)                                                                        \
  X(cuStreamCreate, 2000)                                                                          \
  X(cuStreamDestroy, 4000)                                                                         \
  X(cuStreamSynchronize, 2000)                                                                     \
  X(cuStreamQuery, 2000)                                                                           \
  X(cuStreamBeginCapture, 10010)                                                                   \
  X(cuStreamEndCapture, 10000)                                                                     \
  X(cuGraphInstantiateWithFlags, 11040)                                                            \
  X(cuGraphLaunch, 10000)                                                                          \
  X(cuGraphUpload, 11010)                                                                          \
  X(cuGraphDestroy, 10000)                                                                         \
  X(cuGraphExecDestroy, 10000)                                                                     \
  X(cuEventCreate, 2000)                                                                           \
  X(cuEventDestroy, 4000)                                                                          \
  X(cuEventRecord, 2000)                                                                           \
  X(cuEventRecordWithFlags, 11010)                                                                 \
  X(cuEventSynchronize, 2000)                                                                      \
  X(cuEventElapsedTime, 12080)

// Driver entry points obtained from the CUDA runtime (cudaGetDriverEntryPointByVersion) instead
// of linking libcuda.so.1: a binary linked to the driver does not even start on a machine
// without one, and gpubench must start there to list its benchmarks and to say what is missing.
// A function this driver lacks stays null; GPUBENCH_CU turns a call to it into a CudaError.
struct DriverApi {
#define GPUBENCH_DECLARE_MEMBER(fn, version) PFN_##fn##_v##version fn = nullptr;
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

// Throws CudaError for a failed driver call, with the driver's name and text for the error.
void check(CUresult result, std::string_view call);

} // namespace gpubench

// A checked driver call through the entry-point table, so nothing links against libcuda.so.1
// and the program starts on machines without a driver.
#define GPUBENCH_CU(fn, ...)                                                                       \
  ::gpubench::check(                                                                               \
      ::gpubench::require_driver_function(::gpubench::driver_api().fn, #fn)(__VA_ARGS__),          \
      #fn "(" #__VA_ARGS__ ")")
