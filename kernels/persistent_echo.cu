#include "global_timer.cuh"
#include "persistent_echo.cuh"

// Volatile loads go to the host's memory on every poll; __threadfence_system orders the stamp
// before the answer as the host sees them, so a host that reads the answer reads its stamp.
__global__ void persistent_echo(EchoMailbox* mailbox, std::uint64_t idle_limit_ns) {
  volatile EchoMailbox* box = mailbox;
  std::uint64_t last = 0;
  std::uint64_t served = 0;
  std::uint64_t misordered = 0;
  std::uint64_t deadline = global_timer_ns() + idle_limit_ns;
  EchoExit why = EchoExit::stopped;
  for (;;) {
    const std::uint64_t request = box->request;
    if (request == echo_stop) {
      break;
    }
    if (request != last) {
      const std::uint64_t now = global_timer_ns();
      box->seen_at_ns = now;
      __threadfence_system();
      box->answer = request;
      __threadfence_system();
      misordered += request == last + 1 ? 0 : 1;
      ++served;
      last = request;
      deadline = now + idle_limit_ns;
    } else if (global_timer_ns() > deadline) {
      why = EchoExit::idle;
      break;
    }
  }
  box->served = served;
  box->misordered = misordered;
  __threadfence_system();
  box->exit_reason = static_cast<std::uint32_t>(why);
  __threadfence_system();
}
