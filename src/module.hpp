#pragma once

#include "unique_handle.hpp"

#include <cuda.h>

#include <string>

namespace gpubench {

namespace detail {
struct ModuleRelease {
  void operator()(CUmodule module) const noexcept;
};
struct LibraryRelease {
  void operator()(CUlibrary library) const noexcept;
};
} // namespace detail

// A module loaded eagerly with cuModuleLoadData from a cubin, fatbin or NUL-terminated PTX
// image held in memory; the driver picks the image's SASS for this device or JIT-compiles PTX.
class Module {
public:
  explicit Module(const void* image);
  [[nodiscard]] CUmodule get() const noexcept { return handle_.get(); }
  [[nodiscard]] CUfunction function(const char* name) const;

private:
  UniqueHandle<CUmodule, detail::ModuleRelease> handle_;
};

// A context-independent library from cuLibraryLoadData: kernels are loaded into a context only
// when first asked for (lazy loading, CUDA 12+).
class Library {
public:
  explicit Library(const void* image);
  [[nodiscard]] CUlibrary get() const noexcept { return handle_.get(); }
  // The kernel's context-independent handle (cuLibraryGetKernel), which cuLaunchKernel takes as
  // a CUfunction; under lazy loading, the kernel loads into a context at its first launch there.
  [[nodiscard]] CUkernel kernel(const char* name) const;
  // The kernel as a function of the current context; forces it to load.
  [[nodiscard]] CUfunction function(const char* name) const;

private:
  UniqueHandle<CUlibrary, detail::LibraryRelease> handle_;
};

// Whether this process loads modules lazily or eagerly (cuModuleGetLoadingMode): set for the whole
// process by CUDA_MODULE_LOADING (LAZY, the default since CUDA 12.2, or EAGER) before the driver
// starts, and fixed from then on.
enum class ModuleLoading { lazy, eager };
[[nodiscard]] ModuleLoading module_loading();
[[nodiscard]] const char* to_string(ModuleLoading loading) noexcept;

// A loaded kernel's resources as the driver reports them (cuFuncGetAttribute): the in-program
// equivalent of `cuobjdump --dump-resource-usage`.
struct KernelAttributes {
  int registers = 0;
  int static_shared_bytes = 0;
  int local_bytes = 0;
  int constant_bytes = 0;
  int max_threads_per_block = 0;
  int binary_arch = 0; // 10*major + minor, e.g. 90 for sm_90
  int ptx_arch = 0;
};

[[nodiscard]] KernelAttributes kernel_attributes(CUfunction function);

[[nodiscard]] std::string format_kernel_attributes(const std::string& name,
                                                   const KernelAttributes& attributes);

} // namespace gpubench
