// Does this host's own speed drift? Every 0.5 s for the given seconds (default 20), prints the
// median time of a fixed arithmetic loop (the CPU alone), its CPU cycles where the kernel exposes
// a cycle counter, and one thread's memcpy rate over 64 MiB of 4 KiB and of huge pages: the host
// work inside a launch's submit and a pageable copy's staging, without a GPU. gpubench's
// host-timed figures can be no steadier than these.
// Built with gpubench (no GPU or CUDA needed to run it): build/host_drift 12
#include "median.hpp"

#include <linux/perf_event.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using gpubench::median;

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t copy_bytes = std::size_t{64} << 20;
constexpr std::size_t huge_page = std::size_t{2} << 20;

double seconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// -1 where the (virtual) machine exposes no cycle counter.
int open_cycle_counter() {
  perf_event_attr attr{};
  attr.type = PERF_TYPE_HARDWARE;
  attr.size = sizeof(attr);
  attr.config = PERF_COUNT_HW_CPU_CYCLES;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
}

std::uint64_t read_cycles(int counter) {
  std::uint64_t cycles = 0;
  if (counter >= 0 && read(counter, &cycles, sizeof(cycles)) != sizeof(cycles)) {
    cycles = 0;
  }
  return cycles;
}

// Huge-page aligned and touched, so every run copies memory that is already mapped.
std::byte* mapped_buffer(int advice) {
  void* raw = mmap(nullptr, copy_bytes + huge_page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) {
    std::perror("mmap");
    std::exit(1);
  }
  auto* aligned = reinterpret_cast<std::byte*>(
      (reinterpret_cast<std::uintptr_t>(raw) + huge_page - 1) & ~(huge_page - 1));
  madvise(aligned, copy_bytes, advice);
  std::memset(aligned, 1, copy_bytes);
  return aligned;
}

double cv_percent(const std::vector<double>& values) {
  double mean = 0;
  for (const double v : values) {
    mean += v;
  }
  mean /= static_cast<double>(values.size());
  double squares = 0;
  for (const double v : values) {
    squares += (v - mean) * (v - mean);
  }
  return 100 * std::sqrt(squares / static_cast<double>(values.size() - 1)) / mean;
}

double memcpy_gbps(std::byte* dst, const std::byte* src) {
  const auto start = Clock::now();
  std::memcpy(dst, src, copy_bytes);
  return static_cast<double>(copy_bytes) / seconds(start, Clock::now()) / 1e9;
}

} // namespace

int main(int argc, char** argv) {
  const double total_seconds = argc > 1 ? std::atof(argv[1]) : 20.0;
  const int counter = open_cycle_counter();
  std::printf("perf cycles counter: %s\n", counter >= 0 ? "available" : std::strerror(errno));
  std::byte* small_pages = mapped_buffer(MADV_NOHUGEPAGE);
  std::byte* huge_pages = mapped_buffer(MADV_HUGEPAGE);
  std::byte* destination = mapped_buffer(MADV_NOHUGEPAGE);

  std::printf("%6s %4s %10s %12s %10s %10s\n", "t", "cpu", "spin_us", "spin_cycles", "cp4k_GBs",
              "cpTHP_GBs");
  std::vector<double> spin_us, spin_cycles, copy_4k, copy_huge;
  std::vector<double> window_spin, window_4k, window_huge;
  volatile std::uint64_t sink = 0;
  const auto t0 = Clock::now();
  double next_print = 0.5;
  while (seconds(t0, Clock::now()) < total_seconds) {
    const std::uint64_t cycles_before = read_cycles(counter);
    const auto start = Clock::now();
    std::uint64_t x = 12345;
    for (int i = 0; i < 2000000; ++i) { // a dependent chain: no memory, no vectorising
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    }
    sink = x;
    spin_us.push_back(seconds(start, Clock::now()) * 1e6);
    spin_cycles.push_back(static_cast<double>(read_cycles(counter) - cycles_before));
    copy_4k.push_back(memcpy_gbps(destination, small_pages));
    copy_huge.push_back(memcpy_gbps(destination, huge_pages));
    const double t = seconds(t0, Clock::now());
    if (t >= next_print) {
      std::printf("%6.1f %4d %10.1f %12.0f %10.2f %10.2f\n", t, sched_getcpu(), median(spin_us),
                  median(spin_cycles), median(copy_4k), median(copy_huge));
      window_spin.push_back(median(spin_us));
      window_4k.push_back(median(copy_4k));
      window_huge.push_back(median(copy_huge));
      spin_us.clear();
      spin_cycles.clear();
      copy_4k.clear();
      copy_huge.clear();
      next_print += 0.5;
    }
  }
  static_cast<void>(sink);
  if (window_spin.size() >= 2) {
    std::printf("CV over 0.5 s windows: spin %.2f%%  memcpy4k %.2f%%  memcpyTHP %.2f%%\n",
                cv_percent(window_spin), cv_percent(window_4k), cv_percent(window_huge));
  }
}
