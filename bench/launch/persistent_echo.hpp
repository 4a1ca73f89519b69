#pragma once

#include "clock_relation.hpp"
#include "memory.hpp"
#include "persistent_echo.cuh"
#include "stream.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace gpubench::bench {

// The host's side of kernels/persistent_echo.cuh: the mailbox in pinned, device-mapped host
// memory, the kernel running on a stream of its own (non-blocking, so nothing else queued in the
// context waits behind it), and work items handed to it one at a time.
//
// Never left spinning: the destructor stops the kernel and waits for it, the kernel returns by
// itself after `idle_limit` without a request, and serve() fails after `answer_timeout` without
// an answer, shorter than the idle limit, so a kernel that stopped answering is reported before
// it gives up. While it runs, nothing may wait for the whole context (cuCtxSynchronize) or the
// legacy default stream: they would wait until it stops.
class PersistentEcho {
public:
  static constexpr std::chrono::seconds idle_limit{2};
  static constexpr std::chrono::seconds answer_timeout{1};

  // Launches the kernel on the current context's device.
  PersistentEcho();
  ~PersistentEcho();
  PersistentEcho(const PersistentEcho&) = delete;
  PersistentEcho& operator=(const PersistentEcho&) = delete;
  PersistentEcho(PersistentEcho&&) = delete;
  PersistentEcho& operator=(PersistentEcho&&) = delete;

  // Hands the kernel the next work item (sequence numbers 1, 2, ...) and spins until the kernel
  // answers it. Throws std::runtime_error when the answer is another number, when the kernel has
  // returned, or when no answer comes within answer_timeout.
  EchoSample serve();

  // Work items handed to the kernel so far.
  [[nodiscard]] std::uint64_t sent() const noexcept { return sent_; }

  // Stops the kernel and waits for it; then checks what it counted: every work item served
  // once, each the last one plus 1, and its return at the host's stop request. The mismatch,
  // if there is one. Throws CudaError where the kernel failed.
  [[nodiscard]] std::optional<std::string> finish();

private:
  PinnedHostBuffer memory_;
  EchoMailbox* box_;
  Stream stream_;
  std::uint64_t sent_ = 0;
  bool stopped_ = false;
};

} // namespace gpubench::bench
