// Does this host's own speed drift? Every 0.5 s for the given seconds (default 20), prints the
// median time of a fixed arithmetic loop (the CPU alone), its CPU cycles where the kernel exposes
// a cycle counter, and one thread's memcpy rate over 64 MiB of 4 KiB and of huge pages: the host
// work inside a launch's submit and a pageable copy's staging, without a GPU. gpubench's
// host-timed figures can be no steadier than these.
// Built with gpubench (no GPU or CUDA needed to run it): build/host_drift 12
// A bad argument, memory that cannot be mapped or a stdout that takes no line (closed, full)
// is one line `host_drift: ...` on stderr and a non-zero exit, as gpubench's own errors are.
#include "median.hpp"
#include "printable.hpp"
#include "standard_streams.hpp"

#include <linux/perf_event.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

using gpubench::median;

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t copy_bytes = std::size_t{64} << 20;
constexpr std::size_t huge_page = std::size_t{2} << 20;
// Two 0.5 s windows, the fewest a spread is taken over; a day at most.
constexpr double min_seconds = 1.0;
constexpr double max_seconds = 86400.0;
constexpr double default_seconds = 20.0;
constexpr int usage_error = 2;
constexpr int run_error = 1;

double seconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

[[noreturn]] void fail(int status, std::string_view problem) {
  fmt::print(stderr, "host_drift: {}\n", problem);
  std::exit(status);
}

// What the command line asks: the seconds to watch, or nothing where it asks for the usage
// (-h, --help), which is printed.
std::optional<double> watched_seconds(int argc, char** argv) {
  if (argc == 1) {
    return default_seconds;
  }
  const std::string_view first = argv[1];
  if (argc == 2 && (first == "-h" || first == "--help")) {
    fmt::print("usage: host_drift [SECONDS]  (from {:g} to {:g}, default {:g})\n", min_seconds,
               max_seconds, default_seconds);
    return std::nullopt;
  }
  if (argc > 2) {
    fail(usage_error, "expected one argument, the seconds to watch (host_drift [SECONDS])");
  }
  double seconds = 0.0;
  const auto [end, error] = std::from_chars(first.data(), first.data() + first.size(), seconds);
  if (first.empty() || error != std::errc{} || end != first.data() + first.size() ||
      !(seconds >= min_seconds && seconds <= max_seconds)) {
    fail(usage_error, fmt::format("{}: expected the seconds to watch, from {:g} to {:g}",
                                  gpubench::printable(first.substr(0, 200)), min_seconds,
                                  max_seconds));
  }
  return seconds;
}

// Each line reaches stdout as it is printed, or the run ends saying why it could not.
void flush_line() {
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    fail(run_error, fmt::format("stdout: {}", std::strerror(errno)));
  }
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
    fail(run_error, fmt::format("cannot map {} MiB of memory: {}", (copy_bytes + huge_page) >> 20,
                                std::strerror(errno)));
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
  gpubench::bench::reserve_standard_streams();
  const std::optional<double> total_seconds = watched_seconds(argc, argv);
  if (!total_seconds) {
    flush_line();
    return 0;
  }
  const int counter = open_cycle_counter();
  std::printf("perf cycles counter: %s\n", counter >= 0 ? "available" : std::strerror(errno));
  flush_line();
  std::byte* small_pages = mapped_buffer(MADV_NOHUGEPAGE);
  std::byte* huge_pages = mapped_buffer(MADV_HUGEPAGE);
  std::byte* destination = mapped_buffer(MADV_NOHUGEPAGE);

  std::printf("%6s %4s %10s %12s %10s %10s\n", "t", "cpu", "spin_us", "spin_cycles", "cp4k_GBs",
              "cpTHP_GBs");
  flush_line();
  std::vector<double> spin_us, spin_cycles, copy_4k, copy_huge;
  std::vector<double> window_spin, window_4k, window_huge;
  volatile std::uint64_t sink = 0;
  const auto t0 = Clock::now();
  double next_print = 0.5;
  while (seconds(t0, Clock::now()) < *total_seconds) {
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
      flush_line();
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
    flush_line();
  }
}
