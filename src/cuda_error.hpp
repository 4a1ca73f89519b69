#pragma once

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

// Throws CudaError for a failed runtime call (driver calls are checked in driver_api.hpp).
void check(cudaError_t result, std::string_view call);

} // namespace gpubench

// A checked runtime call; driver calls go through GPUBENCH_CU (driver_api.hpp).
#define GPUBENCH_CUDART(expr) ::gpubench::check((expr), #expr)
