#include "cuda_error.hpp"

#include <fmt/format.h>

namespace gpubench {

CudaError::CudaError(std::string_view call, std::string_view name, std::string_view description,
                     int code)
    : std::runtime_error(format_cuda_error(call, name, description)), code_(code) {}

std::string format_cuda_error(std::string_view call, std::string_view name,
                              std::string_view description) {
  return fmt::format("{}: {} ({})", call, name, description);
}

void check(cudaError_t result, std::string_view call) {
  if (result == cudaSuccess) {
    return;
  }
  // Clear the runtime's sticky last-error slot so a handled error does not resurface later.
  static_cast<void>(cudaGetLastError());
  throw CudaError(call, cudaGetErrorName(result), cudaGetErrorString(result), result);
}

} // namespace gpubench
