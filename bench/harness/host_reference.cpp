#include "host_reference.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace gpubench::bench {
namespace {

// Sizes of the work, each a few tens of microseconds on a current server core: as long as a
// launch batch of launch/paired, so that both span the same stretch of the host's speed.
constexpr std::size_t spin_steps = 1 << 16;
constexpr std::size_t memory_bytes = std::size_t{1} << 20;
constexpr std::size_t cache_line = 64;

} // namespace

HostReference::HostReference(Kind kind) : kind_(kind) {
  if (kind_ == Kind::memory) {
    lines_ = std::make_unique<std::uint8_t[]>(memory_bytes);
  }
}

void HostReference::run() {
  switch (kind_) {
  case Kind::spin: {
    // Knuth's MMIX constants: each step needs the last, so the chain runs at the multiply's
    // latency whatever the core's width.
    std::uint64_t x = state_;
    for (std::size_t i = 0; i < spin_steps; ++i) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    }
    state_ = x;
    benchmark::DoNotOptimize(state_);
    return;
  }
  case Kind::syscall:
    for (std::size_t i = 0; i < host_reference_syscalls; ++i) {
      // getppid cannot fail; a -1 here is a system that filters system calls.
      if (::syscall(SYS_getppid) == -1) {
        throw std::runtime_error(
            fmt::format("the host reference's getppid failed: {}", std::strerror(errno)));
      }
    }
    return;
  case Kind::memory:
    for (std::size_t i = 0; i < memory_bytes; i += cache_line) {
      lines_[i] = static_cast<std::uint8_t>(lines_[i] + 1);
    }
    benchmark::ClobberMemory();
    return;
  }
}

std::string_view HostReference::name_of(Kind kind) noexcept {
  switch (kind) {
  case Kind::spin:
    return "host_spin";
  case Kind::syscall:
    return "host_syscall";
  case Kind::memory:
    return "host_memory";
  }
  return "host";
}

} // namespace gpubench::bench
