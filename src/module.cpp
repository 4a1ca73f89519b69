#include "module.hpp"

#include "driver_api.hpp"

#include <fmt/format.h>

namespace gpubench {
namespace detail {
void ModuleRelease::operator()(CUmodule module) const noexcept {
  driver_api().cuModuleUnload(module);
}
void LibraryRelease::operator()(CUlibrary library) const noexcept {
  driver_api().cuLibraryUnload(library);
}
} // namespace detail

Module::Module(const void* image) {
  CUmodule module = nullptr;
  GPUBENCH_CU(cuModuleLoadData, &module, image);
  handle_ = decltype(handle_)(module);
}

CUfunction Module::function(const char* name) const {
  CUfunction function = nullptr;
  GPUBENCH_CU(cuModuleGetFunction, &function, handle_.get(), name);
  return function;
}

Library::Library(const void* image) {
  CUlibrary library = nullptr;
  GPUBENCH_CU(cuLibraryLoadData, &library, image, nullptr, nullptr, 0, nullptr, nullptr, 0);
  handle_ = decltype(handle_)(library);
}

CUkernel Library::kernel(const char* name) const {
  CUkernel kernel = nullptr;
  GPUBENCH_CU(cuLibraryGetKernel, &kernel, handle_.get(), name);
  return kernel;
}

CUfunction Library::function(const char* name) const {
  CUfunction function = nullptr;
  GPUBENCH_CU(cuKernelGetFunction, &function, kernel(name));
  return function;
}

ModuleLoading module_loading() {
  CUmoduleLoadingMode mode{};
  GPUBENCH_CU(cuModuleGetLoadingMode, &mode);
  return mode == CU_MODULE_LAZY_LOADING ? ModuleLoading::lazy : ModuleLoading::eager;
}

const char* to_string(ModuleLoading loading) noexcept {
  return loading == ModuleLoading::lazy ? "lazy" : "eager";
}

KernelAttributes kernel_attributes(CUfunction function) {
  const auto get = [function](CUfunction_attribute which) {
    int value = 0;
    GPUBENCH_CU(cuFuncGetAttribute, &value, which, function);
    return value;
  };
  KernelAttributes attributes;
  attributes.registers = get(CU_FUNC_ATTRIBUTE_NUM_REGS);
  attributes.static_shared_bytes = get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  attributes.local_bytes = get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
  attributes.constant_bytes = get(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES);
  attributes.max_threads_per_block = get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  attributes.binary_arch = get(CU_FUNC_ATTRIBUTE_BINARY_VERSION);
  attributes.ptx_arch = get(CU_FUNC_ATTRIBUTE_PTX_VERSION);
  return attributes;
}

std::string format_kernel_attributes(const std::string& name, const KernelAttributes& a) {
  return fmt::format("{}: REG:{} SHARED:{} LOCAL:{} CONSTANT:{} MAX_THREADS:{} SASS:sm_{} "
                     "PTX:compute_{}",
                     name, a.registers, a.static_shared_bytes, a.local_bytes, a.constant_bytes,
                     a.max_threads_per_block, a.binary_arch, a.ptx_arch);
}

} // namespace gpubench
