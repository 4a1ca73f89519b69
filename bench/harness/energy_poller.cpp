#include "energy_poller.hpp"

#include <chrono>
#include <utility>

namespace gpubench::bench {

EnergyPoller::EnergyPoller(std::vector<Read> reads)
    : reads_(std::move(reads)),
      latest_(std::make_unique<std::atomic<std::int64_t>[]>(reads_.size())) {
  read_all();
  thread_ = std::jthread([this](const std::stop_token& stop) {
    while (!stop.stop_requested()) {
      read_all();
      // NVML's counter steps far apart (about every 100 ms on the H200, results/h200/info.txt);
      // a pause this short between reads sees an update within about one read's time, without
      // a core spinning on it.
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  });
}

void EnergyPoller::read_all() {
  for (std::size_t d = 0; d < reads_.size(); ++d) {
    const std::optional<std::uint64_t> mj = reads_[d]();
    latest_[d].store(mj ? static_cast<std::int64_t>(*mj) : unreadable, std::memory_order_release);
  }
}

std::optional<std::uint64_t> EnergyPoller::latest(std::size_t device) const {
  const std::int64_t mj = latest_[device].load(std::memory_order_acquire);
  if (mj == unreadable) {
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(mj);
}

} // namespace gpubench::bench
