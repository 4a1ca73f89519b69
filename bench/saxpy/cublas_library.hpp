#pragma once

#include "shared_library.hpp"

#include <cublas_v2.h>
#include <cuda.h>

#include <string>

namespace gpubench::bench {

// The cuBLAS functions the saxpy family calls, from libcublas.so.<major> opened with dlopen
// when a cuBLAS benchmark first runs, not when gpubench starts: cuBLAS and the cuBLASLt it
// loads pass 500 MB of address space and come with the toolkit, not the driver, so gpubench
// lists, describes and runs every other benchmark on a host without them. Every call is
// checked: a failed one throws CudaError with the call, the status's name and its description.
// Immovable: handles (CublasHandle) point at it.
class CublasLibrary {
public:
  // libcublas.so.<major>, the major version of the cuBLAS headers gpubench is built with: the
  // ABI the function types below come from.
  [[nodiscard]] static std::string default_soname();

  // Throws LibraryUnavailable naming the library and the loader's reason where it, or one of
  // the functions, cannot be had.
  explicit CublasLibrary(const std::string& soname = default_soname());
  CublasLibrary(const CublasLibrary&) = delete;
  CublasLibrary& operator=(const CublasLibrary&) = delete;
  CublasLibrary(CublasLibrary&&) = delete;
  CublasLibrary& operator=(CublasLibrary&&) = delete;
  ~CublasLibrary() = default;

  [[nodiscard]] const std::string& soname() const noexcept { return library_.soname(); }

  // A new handle on the current context.
  [[nodiscard]] cublasHandle_t create() const;
  // A destructor's release: a failure is not reported (unique_handle.hpp says why).
  void destroy(cublasHandle_t handle) const noexcept;
  void set_stream(cublasHandle_t handle, CUstream stream) const;
  // y = alpha * x + y over n floats, both contiguous.
  void saxpy(cublasHandle_t handle, int n, const float& alpha, const float* x, float* y) const;
  // Throws CudaError naming `call` unless `status` is success.
  void check(cublasStatus_t status, const char* call) const;

private:
  SharedLibrary library_;
  // cublas_v2.h maps the names the family would call (cublasCreate) to these exported ones.
  decltype(&::cublasCreate_v2) create_;
  decltype(&::cublasDestroy_v2) destroy_;
  decltype(&::cublasSetStream_v2) set_stream_;
  decltype(&::cublasSaxpy_v2) saxpy_;
  decltype(&::cublasGetStatusName) status_name_;
  decltype(&::cublasGetStatusString) status_string_;
};

// One cuBLAS handle, created on the context current at construction and destroyed with the
// object. Move-only; the library it comes from outlives it.
class CublasHandle {
public:
  explicit CublasHandle(const CublasLibrary& library);
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  CublasHandle(CublasHandle&& other) noexcept;
  CublasHandle& operator=(CublasHandle&& other) noexcept;
  ~CublasHandle();

  [[nodiscard]] cublasHandle_t get() const noexcept { return handle_; }
  [[nodiscard]] const CublasLibrary& library() const noexcept { return *library_; }

private:
  void reset() noexcept;

  const CublasLibrary* library_;
  cublasHandle_t handle_ = nullptr;
};

} // namespace gpubench::bench
