#include "family.hpp"

#include "cuda_error.hpp"
#include "driver_api.hpp"
#include "sm_clock_probe.cuh"
#include "stream_gate.cuh"

#include <algorithm>

namespace gpubench::bench {
namespace {
std::vector<Family>& registered() {
  static std::vector<Family> all;
  return all;
}
} // namespace

FamilyRegistrar::FamilyRegistrar(Family (*make)()) {
  auto& all = registered();
  all.push_back(make());
  std::stable_sort(all.begin(), all.end(),
                   [](const Family& a, const Family& b) { return a.order < b.order; });
}

const std::vector<Family>& families() { return registered(); }

std::string_view FlagValues::of(const FamilyFlag& flag) const {
  const auto given = given_.find(flag.name);
  return given != given_.end() ? std::string_view(given->second) : flag.default_value;
}

bool FlagValues::given(const FamilyFlag& flag) const { return given_.contains(flag.name); }

std::vector<KernelSymbol> all_kernels() {
  std::vector<KernelSymbol> kernels{
      {"stream_gate", reinterpret_cast<const void*>(stream_gate)},
      {"sm_clock_probe", reinterpret_cast<const void*>(sm_clock_probe)}};
  // A kernel two families launch (saxpy_vec4: saxpy's own, overlap's running one) is loaded
  // and listed once.
  for (const Family& family : families()) {
    for (const KernelSymbol& kernel : family.kernels) {
      if (std::ranges::none_of(
              kernels, [&](const KernelSymbol& known) { return known.symbol == kernel.symbol; })) {
        kernels.push_back(kernel);
      }
    }
  }
  return kernels;
}

CUfunction driver_function(const void* symbol) {
  cudaFunction_t function = nullptr;
  GPUBENCH_CUDART(cudaGetFuncBySymbol(&function, symbol));
  return reinterpret_cast<CUfunction>(function);
}

CUdeviceptr kernel_module_global(const void* symbol, const char* name) {
  CUmodule module = nullptr;
  GPUBENCH_CU(cuFuncGetModule, &module, driver_function(symbol));
  CUdeviceptr address = 0;
  std::size_t bytes = 0;
  GPUBENCH_CU(cuModuleGetGlobal, &address, &bytes, module, name);
  return address;
}

} // namespace gpubench::bench
