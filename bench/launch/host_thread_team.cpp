#include "host_thread_team.hpp"

#include <utility>

namespace gpubench::bench {
namespace {

// A waiter yields rather than only spinning: the team may hold as many threads as the machine
// has cores, and a thread that spins on a core another one needs would stretch the batch.
template <typename Done> void spin_until(Done&& done) {
  while (!done()) {
    std::this_thread::yield();
  }
}

} // namespace

HostThreadTeam::HostThreadTeam(std::size_t threads, Share share, Share enter)
    : share_(std::move(share)), enter_(std::move(enter)) {
  const std::size_t workers = threads > 0 ? threads - 1 : 0;
  workers_.reserve(workers);
  for (std::size_t t = 1; t <= workers; ++t) {
    workers_.emplace_back([this, t] { work(t); });
  }
}

// Workers waiting between batches or spinning at an armed start line both see stopping_.
HostThreadTeam::~HostThreadTeam() {
  stopping_.store(true);
  generation_.fetch_add(1);
  generation_.notify_all();
  // std::jthread joins each worker as workers_ is destroyed.
}

void HostThreadTeam::keep(std::exception_ptr error) {
  const std::lock_guard lock(error_mutex_);
  if (!error_) {
    error_ = std::move(error);
  }
}

void HostThreadTeam::work(std::size_t thread) {
  std::exception_ptr not_entered;
  try {
    enter_(thread);
  } catch (...) {
    not_entered = std::current_exception();
  }
  std::uint64_t seen = 0;
  while (true) {
    generation_.wait(seen);
    seen = generation_.load();
    if (stopping_.load()) {
      return;
    }
    ready_.fetch_add(1);
    spin_until([&] { return start_.load(std::memory_order_acquire) == seen || stopping_.load(); });
    if (stopping_.load()) {
      return;
    }
    if (not_entered) {
      keep(not_entered); // a thread that could not enter fails every batch it misses
    } else {
      try {
        share_(thread);
      } catch (...) {
        keep(std::current_exception());
      }
    }
    done_.fetch_add(1, std::memory_order_release);
  }
}

void HostThreadTeam::arm() {
  if (armed_) {
    return;
  }
  ready_.store(0);
  done_.store(0);
  generation_.fetch_add(1);
  generation_.notify_all();
  spin_until([&] { return ready_.load() == workers_.size(); });
  armed_ = true;
}

void HostThreadTeam::run() {
  arm();
  armed_ = false;
  ++batches_;
  start_.store(generation_.load(), std::memory_order_release);
  try {
    share_(0);
  } catch (...) {
    keep(std::current_exception());
  }
  spin_until([&] { return done_.load(std::memory_order_acquire) == workers_.size(); });
  const std::lock_guard lock(error_mutex_);
  if (error_) {
    std::exception_ptr error = std::exchange(error_, nullptr);
    std::rethrow_exception(error);
  }
}

} // namespace gpubench::bench
