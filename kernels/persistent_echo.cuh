#pragma once

#include <cuda_runtime_api.h> // __global__ where a host compiler reads this

#include <cstdint>

// A persistent kernel fed work through pinned, device-mapped host memory: the floor no launch
// can beat (launch/persistent/roundtrip), and the echo that relates the host's clock to the
// GPU's global timer (launch/start_latency/). One thread spins on the mailbox's request: the
// host writes the next work item's sequence number, the kernel reads %globaltimer, writes that
// stamp and then the sequence number back, and the host, spinning on the answer, sees it.
//
// It never spins forever: it returns when the host writes echo_stop, and when no new request
// has come for `idle_limit_ns` of its own timer, so a host that failed or was interrupted
// without stopping it leaves no kernel behind. On return it writes what it served and why it
// stopped.

// The request that ends the kernel.
inline constexpr std::uint64_t echo_stop = ~std::uint64_t{0};

// Why the kernel returned (EchoMailbox::exit_reason).
enum class EchoExit : std::uint32_t {
  running = 0, // not yet returned
  stopped = 1, // the host wrote echo_stop
  idle = 2,    // no request came within the idle limit
};

// Each side's writes on their own 64-byte lines, so the host's spinning on the answer and the
// GPU's reads of the request do not pull one line back and forth. The host sets every field to
// zero (exit_reason: running) before the launch; sequence numbers start at 1.
struct EchoMailbox {
  alignas(64) std::uint64_t request; // host to kernel: the work item's sequence number
  alignas(64) std::uint64_t answer;  // kernel to host: the sequence number it served
  std::uint64_t seen_at_ns;          // %globaltimer right after the kernel read that request
  alignas(64) std::uint64_t served;  // at return: requests served
  std::uint64_t misordered;          // at return: requests that were not the last one plus 1
  std::uint32_t exit_reason;         // at return, last: an EchoExit
};

// One thread; `mailbox` is the device's address of mapped host memory.
__global__ void persistent_echo(EchoMailbox* mailbox, std::uint64_t idle_limit_ns);
