// A family that faults the GPU on purpose, linked into gpubench_fault_probe only, never into
// gpubench: its one benchmark writes through a null pointer (an illegal address, one of the
// errors that leave a context unusable) and runs before every real family.
#include "cuda_error.hpp"
#include "family.hpp"
#include "registry.hpp"

#include <cuda_runtime_api.h>

namespace gpubench::bench {
namespace {

__global__ void write_through(int* target) { target[threadIdx.x] = 1; }

Family faulting_family() {
  return {
      .name = "fault",
      .order = -1,
      .grammar = "fault/illegal_address",
      .argument = std::nullopt,
      .figures = {}, // its one benchmark fails: it has no figure
      .kernels = {{"write_through", reinterpret_cast<const void*>(write_through)}},
      .flags = {},
      .configure =
          [](const FlagValues&) {
            return FamilyBenchmarks{.declare = [](Registry& registry) {
              registry.add("fault/illegal_address", [](Harness& h, std::int64_t) {
                write_through<<<1, 32, 0, h.stream()>>>(nullptr);
                GPUBENCH_CUDART(cudaGetLastError());
                GPUBENCH_CUDART(cudaStreamSynchronize(h.stream()));
              });
            }};
          },
  };
}

} // namespace

GPUBENCH_FAMILY(faulting_family);

} // namespace gpubench::bench
