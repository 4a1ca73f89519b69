// A parameter block larger than the kernel takes (here 4 bytes past 32764, the most CUDA 12.1+
// accepts at all) must come back from cuLaunchKernel as a CudaError naming the call, never reach
// the GPU, and leave the stream fit for the next launch.
#include "cuda_error.hpp"
#include "driver_api.hpp"
#include "gpu_test.hpp"
#include "kernel_params.hpp"
#include "launch_probe.cuh"
#include "family.hpp"
#include "launch_counts.hpp"

#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

using OversizedPayload = GpuTest;

void launch_packed(CUfunction function, CUstream stream, std::size_t bytes) {
  std::vector<unsigned char> payload(bytes);
  payload.front() = payload_first_byte;
  payload.back() = payload_last_byte;
  PackedKernelParams packed;
  packed.push_bytes(std::as_bytes(std::span(payload)), 1);
  GPUBENCH_CU(cuLaunchKernel, function, 1, 1, 1, 1, 1, 1, 0, stream, nullptr, packed.extra());
}

TEST_F(OversizedPayload, IsRefusedWithAnErrorNamingTheCallAndTheStreamStaysUsable) {
  const CUfunction function =
      bench::driver_function(reinterpret_cast<const void*>(launch_probe_32764));
  GPUBENCH_CU(cuStreamSynchronize, stream());
  bench::reset_launch_counts();

  try {
    launch_packed(function, stream(), sizeof(Payload<32764>) + 4);
    ADD_FAILURE() << "the driver accepted a 32768-byte parameter block for a 32764-byte kernel";
  } catch (const CudaError& error) {
    EXPECT_NE(std::string(error.what()).find("cuLaunchKernel"), std::string::npos)
        << error.what();
  }

  launch_packed(function, stream(), sizeof(Payload<32764>));
  GPUBENCH_CU(cuStreamSynchronize, stream());
  const bench::LaunchCounts counts = bench::read_launch_counts();
  EXPECT_EQ(counts.launched, 1U) << "the refused launch must not have run";
  EXPECT_EQ(counts.intact, 1U);
}

} // namespace
} // namespace gpubench::testing
