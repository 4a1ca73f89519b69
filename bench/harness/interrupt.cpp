#include "interrupt.hpp"

#include <atomic>
#include <csignal>
#include <cstdlib>

namespace gpubench::bench {
namespace {
// Lock-free, so the handler may touch it.
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

std::function<void(int)>& action() {
  static std::function<void(int)> stored;
  return stored;
}

// Records the first signal; later ones (the same signal through `timeout` and to the process
// group at once, a scheduler repeating its SIGTERM) change nothing.
extern "C" void record_signal(int signal) {
  int none = 0;
  g_signal.compare_exchange_strong(none, signal);
}
} // namespace

void install_interrupt_handlers() {
  struct sigaction handler {};
  handler.sa_handler = record_signal;
  sigemptyset(&handler.sa_mask);
  handler.sa_flags = SA_RESTART;
  sigaction(SIGINT, &handler, nullptr);
  sigaction(SIGTERM, &handler, nullptr);
  // A write to the closed pipe fails (EPIPE) and the run stops at the next check, saving what
  // it measured, where the default action would end it at once, the file left "running".
  sigaction(SIGPIPE, &handler, nullptr);
  // A hangup (the terminal or ssh session closed) too, unless gpubench started with it ignored:
  // `nohup gpubench` asks to run on past one.
  struct sigaction hangup {};
  sigaction(SIGHUP, nullptr, &hangup);
  if (hangup.sa_handler != SIG_IGN) {
    sigaction(SIGHUP, &handler, nullptr);
  }
}

const char* signal_name(int signal) noexcept {
  switch (signal) {
  case SIGINT:
    return "SIGINT";
  case SIGHUP:
    return "SIGHUP";
  case SIGPIPE:
    return "SIGPIPE";
  default:
    return "SIGTERM";
  }
}

int interrupt_signal() noexcept { return g_signal.load(); }

void throw_if_interrupted() {
  if (interrupt_signal() != 0) {
    throw Interrupted();
  }
}

void on_interrupt(std::function<void(int)> then) { action() = std::move(then); }

void finish_interrupted() {
  const int signal = interrupt_signal();
  if (action()) {
    action()(signal);
  }
  std::_Exit(128 + signal);
}

} // namespace gpubench::bench
