#pragma once

#include <functional>
#include <stdexcept>

namespace gpubench::bench {

// SIGINT, SIGTERM, SIGHUP and SIGPIPE (a CI cancel, a scheduler's time limit, an eviction, a
// closed terminal, the reader of the console output gone as `| head` goes; SIGHUP not where it
// was ignored at the start, as under nohup) stop a run between batches: the handler only records the signal; the timed loop sees it and throws Interrupted,
// and the benchmark wrapper hands over to the action set with on_interrupt(), which saves what
// was measured and exits. Later signals, however many and however delivered, are ignored: none
// may end the process while it writes what was measured.
void install_interrupt_handlers();

// The name of a signal the handlers handle ("SIGINT", ...).
[[nodiscard]] const char* signal_name(int signal) noexcept;

// The signal that interrupted the run, or 0.
[[nodiscard]] int interrupt_signal() noexcept;

class Interrupted : public std::runtime_error {
public:
  Interrupted() : std::runtime_error("interrupted") {}
};

// Throws Interrupted once a signal has arrived.
void throw_if_interrupted();

// What to do once interrupted (called from the benchmark wrapper; it does not return).
void on_interrupt(std::function<void(int signal)> action);
[[noreturn]] void finish_interrupted();

} // namespace gpubench::bench
