#pragma once

#include <chrono>

namespace gpubench::bench {

// Seconds on the host clock for fn().
template <typename Fn> double host_seconds(Fn&& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace gpubench::bench
