#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace gpubench {

// Runs fn(begin, end) over [0, n) split into one contiguous chunk per hardware thread: the CPU
// side of verification and input generation must keep up with a GPU that handles GiBs per ms.
template <typename Fn> void parallel_chunks(std::size_t n, Fn fn) {
  constexpr std::size_t min_chunk = std::size_t{1} << 20;
  const std::size_t threads =
      std::clamp<std::size_t>(n / min_chunk, 1, std::max(1U, std::thread::hardware_concurrency()));
  if (threads == 1) {
    // One chunk: the calling thread runs it, with no thread made for it.
    if (n > 0) {
      fn(std::size_t{0}, n);
    }
    return;
  }
  const std::size_t chunk = (n + threads - 1) / threads;
  std::vector<std::jthread> workers;
  workers.reserve(threads);
  for (std::size_t begin = 0; begin < n; begin += chunk) {
    workers.emplace_back([=] { fn(begin, std::min(n, begin + chunk)); });
  }
}

} // namespace gpubench
