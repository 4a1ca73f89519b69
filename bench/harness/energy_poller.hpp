#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

namespace gpubench::bench {

// Reads each device's energy counter over and over on a thread of its own, so an energy
// window's poll is a load, not an NVML call: one read takes milliseconds, long enough to leave
// the GPU idle once its queued operations run out while the host that feeds it waits on NVML.
class EnergyPoller {
public:
  using Read = std::function<std::optional<std::uint64_t>()>;

  // Reads every counter once before returning, so latest() has a value from the start.
  explicit EnergyPoller(std::vector<Read> reads);
  EnergyPoller(const EnergyPoller&) = delete;
  EnergyPoller& operator=(const EnergyPoller&) = delete;
  ~EnergyPoller() = default; // the thread stops and joins first (declared last)

  // Device `device`'s counter at its latest read, in mJ; nullopt where that read failed.
  [[nodiscard]] std::optional<std::uint64_t> latest(std::size_t device) const;

private:
  static constexpr std::int64_t unreadable = -1;

  void read_all();

  std::vector<Read> reads_;
  std::unique_ptr<std::atomic<std::int64_t>[]> latest_;
  std::jthread thread_;
};

} // namespace gpubench::bench
