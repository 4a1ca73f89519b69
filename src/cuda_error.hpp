#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace gpubench {

// The one exception type for every failed CUDA call: the message names the call, the error
// name and the error string, e.g. "cuMemAlloc(&ptr, bytes): CUDA_ERROR_OUT_OF_MEMORY (out of
// memory)". `code` keeps the numeric result so callers can react to a specific error.
class CudaError : public std::runtime_error {
public:
  CudaError(std::string_view call, std::string_view name, std::string_view description, int code);
  [[nodiscard]] int code() const noexcept { return code_; }

private:
  int code_;
};

[[nodiscard]] std::string format_cuda_error(std::string_view call, std::string_view name,
                                            std::string_view description);

void check(CUresult result, std::string_view call);
void check(cudaError_t result, std::string_view call);

} // namespace gpubench

// Checked calls. GPUBENCH_CU goes through the driver entry-point table (see driver_api.hpp), so
// nothing links against libcuda.so.1 and the program starts on machines without a driver.
#define GPUBENCH_CU(fn, ...)                                                                       \
  ::gpubench::check(                                                                               \
      ::gpubench::require_driver_function(::gpubench::driver_api().fn, #fn)(__VA_ARGS__),          \
      #fn "(" #__VA_ARGS__ ")")
#define GPUBENCH_CUDART(expr) ::gpubench::check((expr), #expr)
