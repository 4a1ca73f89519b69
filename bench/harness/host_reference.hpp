#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace gpubench::bench {

// Host work that touches no GPU, a fixed amount of it, timed in the same rounds as the batches
// of launch/paired and copy/.../sync_paired (duet benchmarking): the host's speed moves between
// processes and minutes by more than a launch path's cost does, and a workload run beside the
// launches or copies on the same thread, in the same rounds, meets the same moves. A launch's
// or a copy's cost over a reference's is then a figure the host's drift cancels from as far as
// the two depend on the same parts of the host; which part each depends on is what the three
// kinds tell apart:
//   spin     a chain of dependent integer multiply-adds: the core's clock alone;
//   syscall  system calls that return at once: entering and leaving the kernel;
//   memory   one write to each cache line of 1 MiB: the caches and the memory beyond them.
// The work is the same in every process, never scaled to the host, so that the times compare.
class HostReference {
public:
  enum class Kind { spin, syscall, memory };

  explicit HostReference(Kind kind);

  // Does the work once; throws std::runtime_error where a system call fails.
  void run();

  [[nodiscard]] std::string_view name() const noexcept { return name_of(kind_); }
  // host_spin, host_syscall, host_memory: the counters' names.
  [[nodiscard]] static std::string_view name_of(Kind kind) noexcept;

private:
  Kind kind_;
  std::unique_ptr<std::uint8_t[]> lines_; // memory: the bytes written
  std::uint64_t state_ = 1;               // spin: the chain's value, kept so it is computed
};

// The system calls one run of the syscall reference makes: what a launch's cost over it is
// counted in (launch/paired's syscalls_per_launch).
inline constexpr std::size_t host_reference_syscalls = 64;

inline constexpr HostReference::Kind host_reference_kinds[] = {
    HostReference::Kind::spin, HostReference::Kind::syscall, HostReference::Kind::memory};

} // namespace gpubench::bench
