#include "interrupt.hpp"

#include <atomic>
#include <csignal>
#include <cstdlib>

namespace gpubench::bench {
namespace {
volatile std::sig_atomic_t g_signal = 0;
std::function<void(int)>& action() {
  static std::function<void(int)> stored;
  return stored;
}

extern "C" void record_signal(int signal) {
  if (g_signal != 0) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  g_signal = signal;
}
} // namespace

void install_interrupt_handlers() {
  struct sigaction handler {};
  handler.sa_handler = record_signal;
  sigemptyset(&handler.sa_mask);
  handler.sa_flags = SA_RESTART;
  sigaction(SIGINT, &handler, nullptr);
  sigaction(SIGTERM, &handler, nullptr);
}

int interrupt_signal() noexcept { return g_signal; }

void throw_if_interrupted() {
  if (g_signal != 0) {
    throw Interrupted();
  }
}

void on_interrupt(std::function<void(int)> then) { action() = std::move(then); }

void finish_interrupted() {
  const int signal = g_signal;
  if (action()) {
    action()(signal);
  }
  std::_Exit(128 + signal);
}

} // namespace gpubench::bench
