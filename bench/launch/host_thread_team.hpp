#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gpubench::bench {

// Host threads that do one batch of work together, started from a common line: the calling
// thread is thread 0 and `threads - 1` workers are made once, at construction, so a timed batch
// makes no thread. A batch is two steps, so a harness can time the second alone:
//
//   arm()   wakes the workers and returns once each waits, spinning, at the start line;
//   run()   opens the line, does thread 0's share on the calling thread, and returns once every
//           thread has finished its share: from the line's opening to the last thread's end.
//
// run() arms first where arm() was not called. Each worker runs `enter(thread)` once, before its
// first batch (making a CUDA context current for it). A share that throws makes run() throw the
// first such exception once every thread has finished; an enter that threw, every run().
class HostThreadTeam {
public:
  using Share = std::function<void(std::size_t thread)>;

  HostThreadTeam(
      std::size_t threads, Share share, Share enter = [](std::size_t) {});
  HostThreadTeam(const HostThreadTeam&) = delete;
  HostThreadTeam& operator=(const HostThreadTeam&) = delete;
  HostThreadTeam(HostThreadTeam&&) = delete;
  HostThreadTeam& operator=(HostThreadTeam&&) = delete;
  ~HostThreadTeam();

  [[nodiscard]] std::size_t threads() const noexcept { return workers_.size() + 1; }

  void arm();
  void run();

  // Batches run so far.
  [[nodiscard]] std::uint64_t batches() const noexcept { return batches_; }

private:
  void work(std::size_t thread);
  void keep(std::exception_ptr error);

  Share share_;
  Share enter_;
  // generation_ counts the batches armed; a worker waits on it (futex) between batches, then
  // spins on start_ until run() stores the same generation there.
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<std::uint64_t> start_{0};
  std::atomic<std::size_t> ready_{0};
  std::atomic<std::size_t> done_{0};
  std::atomic<bool> stopping_{false};
  bool armed_ = false;
  std::uint64_t batches_ = 0;
  std::mutex error_mutex_;
  std::exception_ptr error_;
  std::vector<std::jthread> workers_;
};

} // namespace gpubench::bench
