#include "cuda_error.hpp"
#include "driver_api.hpp"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

TEST(CudaError, NamesCallErrorAndDescription) {
  EXPECT_EQ(
      format_cuda_error("cuMemAlloc(&ptr, bytes)", "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"),
      "cuMemAlloc(&ptr, bytes): CUDA_ERROR_OUT_OF_MEMORY (out of memory)");
}

TEST(CudaError, RuntimeErrorsThrowWithTheirNames) {
  try {
    check(cudaErrorInvalidValue, "cudaMemcpy(dst, src, n, kind)");
    FAIL() << "no exception";
  } catch (const CudaError& error) {
    EXPECT_EQ(error.code(), cudaErrorInvalidValue);
    EXPECT_STREQ(error.what(),
                 "cudaMemcpy(dst, src, n, kind): cudaErrorInvalidValue (invalid argument)");
  }
}

TEST(CudaError, SuccessDoesNotThrow) {
  EXPECT_NO_THROW(check(cudaSuccess, "x"));
  EXPECT_NO_THROW(check(CUDA_SUCCESS, "x"));
}

TEST(CudaError, DriverErrorsCarryTheCode) {
  try {
    check(CUDA_ERROR_INVALID_VALUE, "cuMemAlloc(&p, 0)");
    FAIL() << "no exception";
  } catch (const CudaError& error) {
    EXPECT_EQ(error.code(), CUDA_ERROR_INVALID_VALUE);
    EXPECT_TRUE(std::string(error.what()).starts_with("cuMemAlloc(&p, 0): "));
  }
}

} // namespace
} // namespace gpubench
