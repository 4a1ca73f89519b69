#include "harness.hpp"

#include "cuda_error.hpp"
#include "driver_api.hpp"

#include <stdexcept>

namespace gpubench::bench {

std::size_t Harness::run_once() {
  call_();
  synchronize_all();
  check_last_error();
  ops_performed_ += ops_per_call_;
  return ops_per_call_;
}

Session& Harness::session_on(int ordinal) const {
  for (Session* session : sessions_) {
    if (session->device().ordinal == ordinal) {
      return *session;
    }
  }
  throw std::logic_error("a benchmark reached for a device it was not handed");
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
