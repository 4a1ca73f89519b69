#include "cuda_error.hpp"
#include "device_info.hpp"
#include "embedded_images.hpp"
#include "gpu_test.hpp"
#include "module.hpp"

namespace gpubench::testing {
namespace {

using Modules = GpuTest;

int device_arch() {
  const DeviceInfo info = query_device(0);
  return info.compute_capability_major * 10 + info.compute_capability_minor;
}

TEST_F(Modules, FatbinHoldsSassForThisDevice) {
  const Module module(saxpy_fatbin().data());
  const KernelAttributes attributes = kernel_attributes(module.function("saxpy"));
  EXPECT_EQ(attributes.binary_arch, device_arch());
  EXPECT_GT(attributes.registers, 0);
  EXPECT_EQ(attributes.local_bytes, 0) << "saxpy must not spill";
  EXPECT_GE(attributes.max_threads_per_block, 256);
}

TEST_F(Modules, PtxIsJitCompiledForThisDevice) {
  const Module module(saxpy_ptx());
  const KernelAttributes attributes = kernel_attributes(module.function("saxpy"));
  EXPECT_EQ(attributes.binary_arch, device_arch());
  EXPECT_EQ(attributes.ptx_arch, 75);
}

TEST_F(Modules, LibraryLoadsLazily) {
  const Library library(saxpy_fatbin().data());
  EXPECT_NE(library.function("saxpy"), nullptr);
}

TEST_F(Modules, AMissingKernelThrowsNamingTheCall) {
  const Module module(saxpy_fatbin().data());
  EXPECT_THROW(static_cast<void>(module.function("no_such_kernel")), CudaError);
}

TEST_F(Modules, AnImageThatIsNotOneIsRejected) {
  const char garbage[] = "this is not a cubin";
  EXPECT_THROW(static_cast<void>(Module(garbage)), CudaError);
}

TEST_F(Modules, ResourceReportNamesEveryField) {
  const Module module(saxpy_fatbin().data());
  const std::string line =
      format_kernel_attributes("saxpy", kernel_attributes(module.function("saxpy")));
  for (const char* field :
       {"REG:", "SHARED:", "LOCAL:", "CONSTANT:", "MAX_THREADS:", "SASS:sm_", "PTX:compute_"}) {
    EXPECT_NE(line.find(field), std::string::npos) << field;
  }
}

} // namespace
} // namespace gpubench::testing
