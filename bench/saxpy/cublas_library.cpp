#include "cublas_library.hpp"

#include "cuda_error.hpp"

#include <fmt/format.h>

#include <utility>

namespace gpubench::bench {

std::string CublasLibrary::default_soname() {
  return fmt::format("libcublas.so.{}", CUBLAS_VER_MAJOR);
}

CublasLibrary::CublasLibrary(const std::string& soname)
    : library_(soname), create_(library_.function<decltype(create_)>("cublasCreate_v2")),
      destroy_(library_.function<decltype(destroy_)>("cublasDestroy_v2")),
      set_stream_(library_.function<decltype(set_stream_)>("cublasSetStream_v2")),
      saxpy_(library_.function<decltype(saxpy_)>("cublasSaxpy_v2")),
      status_name_(library_.function<decltype(status_name_)>("cublasGetStatusName")),
      status_string_(library_.function<decltype(status_string_)>("cublasGetStatusString")) {}

void CublasLibrary::check(cublasStatus_t status, const char* call) const {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw CudaError(call, status_name_(status), status_string_(status), status);
  }
}

cublasHandle_t CublasLibrary::create() const {
  cublasHandle_t handle = nullptr;
  check(create_(&handle), "cublasCreate(&handle)");
  return handle;
}

void CublasLibrary::destroy(cublasHandle_t handle) const noexcept {
  static_cast<void>(destroy_(handle));
}

void CublasLibrary::set_stream(cublasHandle_t handle, CUstream stream) const {
  check(set_stream_(handle, stream), "cublasSetStream(handle, stream)");
}

void CublasLibrary::saxpy(cublasHandle_t handle, int n, const float& alpha, const float* x,
                          float* y) const {
  check(saxpy_(handle, n, &alpha, x, 1, y, 1), "cublasSaxpy(handle, n, &alpha, x, 1, y, 1)");
}

CublasHandle::CublasHandle(const CublasLibrary& library)
    : library_(&library), handle_(library.create()) {}

CublasHandle::CublasHandle(CublasHandle&& other) noexcept
    : library_(other.library_), handle_(std::exchange(other.handle_, nullptr)) {}

CublasHandle& CublasHandle::operator=(CublasHandle&& other) noexcept {
  if (this != &other) {
    reset();
    library_ = other.library_;
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

CublasHandle::~CublasHandle() { reset(); }

void CublasHandle::reset() noexcept {
  if (handle_ != nullptr) {
    library_->destroy(handle_);
    handle_ = nullptr;
  }
}

} // namespace gpubench::bench
