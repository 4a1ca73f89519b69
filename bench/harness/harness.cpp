#include "harness.hpp"

#include "cuda_error.hpp"
#include "driver_api.hpp"

namespace gpubench::bench {

std::size_t Harness::run_once() {
  call_();
  synchronize_all();
  check_last_error();
  ops_performed_ += ops_per_call_;
  return ops_per_call_;
}

void Harness::verify(const std::optional<std::string>& mismatch) {
  if (mismatch) {
    throw VerificationFailure(*mismatch);
  }
}

void Harness::synchronize(CUstream stream) { GPUBENCH_CU(cuStreamSynchronize, stream); }

void Harness::synchronize_all() const {
  for (const CUstream stream : wait_streams_) {
    synchronize(stream);
  }
}

// <<<>>> and library launches report errors through the runtime's last-error slot.
void Harness::check_last_error() const { GPUBENCH_CUDART(cudaGetLastError()); }

} // namespace gpubench::bench
