// copy/<direction>/<host memory>/<api>/<bytes>: host<->device and device<->device copies.
// async and zerocopy: GPU time from events, the batch started from behind a StreamGate (except
// pageable memory, which the driver stages synchronously). sync: the host clock around the
// blocking call, which is what a caller of cuMemcpyHtoD waits. HtoH/pageable/sync is one host
// thread's memcpy between pageable buffers: the kind of work a pageable copy's staging does,
// measured in the same run, so a pageable figure can be read against the host it ran on.
#include "benchmarks.hpp"
#include "driver_api.hpp"
#include "failures.hpp"
#include "host_memory.hpp"
#include "measure.hpp"
#include "parallel.hpp"
#include "random_fill.hpp"
#include "session.hpp"
#include "sizes.hpp"
#include "timed_loop.hpp"
#include "zerocopy_launch.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>

namespace gpubench::bench {
namespace {

enum class Direction { HtoD, DtoH, DtoD, bidir, HtoH };
enum class Api { sync, async, zerocopy };

const char* to_string(Direction d) {
  constexpr const char* names[] = {"HtoD", "DtoH", "DtoD", "bidir", "HtoH"};
  return names[static_cast<int>(d)];
}
const char* to_string(Api a) {
  constexpr const char* names[] = {"sync", "async", "zerocopy"};
  return names[static_cast<int>(a)];
}

struct CopyCase {
  Direction direction;
  const HostMemoryKind* memory; // null for DtoD
  Api api;
};

// Buffers for the largest size run so far; smaller sizes use a prefix. `expected` holds the
// random bytes every copy must deliver; the CPU never reads write-combined memory (it is
// uncached and reads crawl), so checks go through `readback`.
struct CopyState {
  explicit CopyState(Session&) {}

  void ensure_capacity(std::size_t bytes) {
    if (bytes <= capacity) {
      return;
    }
    host.clear();
    device_a.reset();
    device_b.reset();
    device_check.reset();
    readback.reset();
    expected.reset();
    device_expected.reset();
    expected.emplace(bytes);
    fill_random(expected->span(), 0xC0FFEE);
    device_expected.emplace(bytes);
    GPUBENCH_CU(cuMemcpyHtoD, device_expected->ptr(), expected->data(), bytes);
    readback.emplace(bytes);
    device_a.emplace(bytes);
    device_b.emplace(bytes);
    device_check.emplace(bytes);
    capacity = bytes;
  }

  // Two host buffers of `kind`: the copy's own, and the other direction's for bidir.
  HostBuffers& host_buffers(const HostMemoryKind& kind) {
    auto& slot = host[kind.name];
    if (!slot) {
      slot = std::make_unique<HostBuffers>(
          HostBuffers{kind.allocate(capacity), kind.allocate(capacity)});
    }
    return *slot;
  }

  std::size_t capacity = 0;
  std::optional<PageableHostBuffer> expected;
  std::optional<DeviceBuffer> device_expected; // sources on the device are filled from here
  std::optional<PinnedHostBuffer> readback;
  std::optional<DeviceBuffer> device_a;
  std::optional<DeviceBuffer> device_b;
  std::optional<DeviceBuffer> device_check;
  std::map<std::string, std::unique_ptr<HostBuffers>> host;
  StreamGate gate;
  Event start;
  Event stop;
  Event second_stop;
};

// Multi-GiB host buffers are filled and compared on every thread: single-threaded, setup and
// verification would take longer than the measurement.
void parallel_copy(std::byte* dst, const std::byte* src, std::size_t bytes) {
  parallel_chunks(bytes, [=](std::size_t begin, std::size_t end) {
    std::memcpy(dst + begin, src + begin, end - begin);
  });
}

void parallel_fill(std::byte* dst, unsigned char value, std::size_t bytes) {
  parallel_chunks(bytes, [=](std::size_t begin, std::size_t end) {
    std::memset(dst + begin, value, end - begin);
  });
}

bool parallel_equal(const std::byte* a, const std::byte* b, std::size_t bytes) {
  std::atomic<bool> equal{true};
  parallel_chunks(bytes, [&](std::size_t begin, std::size_t end) {
    if (std::memcmp(a + begin, b + begin, end - begin) != 0) {
      equal = false;
    }
  });
  return equal;
}

// Copies per timed batch: about 64 MiB in flight so small copies are not lost in event
// resolution, at most 64 so a gated stream stays far below its queue depth.
std::size_t batch_copies(std::size_t bytes) {
  return std::clamp<std::size_t>((std::size_t{64} << 20) / bytes, 1, 64);
}

// Why `bytes` cannot run here, if it cannot: four device buffers and, on the host, the expected
// bytes, a readback and two buffers of the size.
std::optional<std::string> does_not_fit(std::size_t bytes) {
  const std::size_t free_bytes = free_device_bytes();
  if (4 * bytes > free_bytes) {
    return fmt::format("{} copies need {} of device memory, {} is free", format_size(bytes),
                       format_size(4 * bytes), format_size(free_bytes));
  }
  const auto host_bytes = static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) *
                          static_cast<std::size_t>(sysconf(_SC_PAGE_SIZE));
  if (4 * bytes > host_bytes / 2) {
    return fmt::format("{} copies need {} of host memory, the machine has {}", format_size(bytes),
                       format_size(4 * bytes), format_size(host_bytes));
  }
  return std::nullopt;
}

class CopyRun {
public:
  CopyRun(const CopyCase& c, std::size_t bytes, CopyState& state, Session& session)
      : case_(c), bytes_(bytes), s_(state), stream_(session.stream()),
        second_stream_(session.second_stream()), sm_count_(session.device().sm_count) {
    if (c.memory != nullptr) {
      host_ = &s_.host_buffers(*c.memory);
    }
  }

  // Sources hold the expected bytes, destinations a poison pattern.
  void prepare() {
    const std::byte* expected = s_.expected->data();
    const CUdeviceptr device_expected = s_.device_expected->ptr();
    switch (case_.direction) {
    case Direction::HtoD:
      parallel_copy(host_->a->data(), expected, bytes_);
      GPUBENCH_CU(cuMemsetD8Async, s_.device_a->ptr(), poison, bytes_, stream_);
      break;
    case Direction::DtoH:
      GPUBENCH_CU(cuMemcpyDtoDAsync, s_.device_a->ptr(), device_expected, bytes_, stream_);
      parallel_fill(host_->a->data(), poison, bytes_);
      break;
    case Direction::DtoD:
      GPUBENCH_CU(cuMemcpyDtoDAsync, s_.device_a->ptr(), device_expected, bytes_, stream_);
      GPUBENCH_CU(cuMemsetD8Async, s_.device_b->ptr(), poison, bytes_, stream_);
      break;
    case Direction::bidir:
      parallel_copy(host_->a->data(), expected, bytes_);
      GPUBENCH_CU(cuMemsetD8Async, s_.device_a->ptr(), poison, bytes_, stream_);
      GPUBENCH_CU(cuMemcpyDtoDAsync, s_.device_b->ptr(), device_expected, bytes_, stream_);
      parallel_fill(host_->b->data(), poison, bytes_);
      break;
    case Direction::HtoH:
      parallel_copy(host_->a->data(), expected, bytes_);
      parallel_fill(host_->b->data(), poison, bytes_);
      break;
    }
    GPUBENCH_CU(cuCtxSynchronize);
  }

  // Seconds for `count` copies (for bidir, `count` in each direction at once).
  double time_batch(std::size_t count) {
    if (case_.api == Api::sync) {
      return host_seconds([&] {
        for (std::size_t i = 0; i < count; ++i) {
          copy_sync();
        }
      });
    }
    if (case_.direction == Direction::bidir) {
      return time_bidir(count);
    }
    const auto enqueue = [&] { copy_on(stream_, case_.direction); };
    if (gateable()) {
      return gated_batch_seconds(s_.gate, stream_, count, enqueue);
    }
    s_.start.record(stream_);
    for (std::size_t i = 0; i < count; ++i) {
      enqueue();
    }
    s_.stop.record(stream_);
    return elapsed_ms(s_.start, s_.stop) * 1e-3;
  }

  // Compares every destination byte with what was sent; a description of the first difference.
  std::optional<std::string> verify() {
    GPUBENCH_CU(cuCtxSynchronize);
    switch (case_.direction) {
    case Direction::HtoD:
      return compare_device(s_.device_a->ptr(), "device");
    case Direction::DtoH:
      return compare_host(host_->a->data());
    case Direction::DtoD:
      return compare_device(s_.device_b->ptr(), "device");
    case Direction::bidir:
      if (auto wrong = compare_device(s_.device_a->ptr(), "device (HtoD)")) {
        return wrong;
      }
      return compare_host(host_->b->data());
    case Direction::HtoH:
      return compare_host(host_->b->data());
    }
    return std::nullopt;
  }

  // Bytes one operation moves: DtoD counts the read and the write, as saxpy's ceiling does;
  // bidir counts both directions.
  [[nodiscard]] std::size_t bytes_per_op() const {
    return case_.direction == Direction::DtoD || case_.direction == Direction::bidir ? 2 * bytes_
                                                                                     : bytes_;
  }

private:
  static constexpr unsigned char poison = 0xA5;

  [[nodiscard]] bool gateable() const {
    return case_.memory == nullptr || case_.memory->page_locked;
  }

  void copy_sync() {
    switch (case_.direction) {
    case Direction::HtoD:
      GPUBENCH_CU(cuMemcpyHtoD, s_.device_a->ptr(), host_->a->data(), bytes_);
      break;
    case Direction::DtoH:
      GPUBENCH_CU(cuMemcpyDtoH, host_->a->data(), s_.device_a->ptr(), bytes_);
      break;
    case Direction::DtoD:
      GPUBENCH_CU(cuMemcpyDtoD, s_.device_b->ptr(), s_.device_a->ptr(), bytes_);
      // cuMemcpyDtoD may return before a device-to-device copy finishes (CUDA's documented
      // sync behaviour); the caller's wait is the one a user would see.
      GPUBENCH_CU(cuCtxSynchronize);
      break;
    case Direction::HtoH:
      std::memcpy(host_->b->data(), host_->a->data(), bytes_); // one thread, as the driver stages
      break;
    case Direction::bidir:
      throw std::logic_error("bidir has no sync form");
    }
  }

  void copy_on(CUstream stream, Direction direction) {
    if (case_.api == Api::zerocopy) {
      const bool to_device = direction == Direction::HtoD;
      const auto host = reinterpret_cast<unsigned char*>(host_->a->device_ptr());
      const auto device = s_.device_a->as<unsigned char>();
      zerocopy_launch(to_device ? host : device, to_device ? device : host, bytes_, sm_count_,
                      stream);
      return;
    }
    switch (direction) {
    case Direction::HtoD:
      GPUBENCH_CU(cuMemcpyHtoDAsync, s_.device_a->ptr(), host_->a->data(), bytes_, stream);
      break;
    case Direction::DtoH:
      GPUBENCH_CU(cuMemcpyDtoHAsync, host_->a->data(), s_.device_a->ptr(), bytes_, stream);
      break;
    case Direction::DtoD:
      GPUBENCH_CU(cuMemcpyDtoDAsync, s_.device_b->ptr(), s_.device_a->ptr(), bytes_, stream);
      break;
    case Direction::bidir:
      GPUBENCH_CU(cuMemcpyHtoDAsync, s_.device_a->ptr(), host_->a->data(), bytes_, stream);
      GPUBENCH_CU(cuMemcpyDtoHAsync, host_->b->data(), s_.device_b->ptr(), bytes_, second_stream_);
      break;
    case Direction::HtoH:
      throw std::logic_error("HtoH has only a sync form");
    }
  }

  // Both directions held behind one gate and released together, so the time is that of real
  // concurrency: from the first start to the later of the two ends.
  double time_bidir(std::size_t count) {
    const bool gated = gateable();
    if (gated) {
      s_.gate.hold(stream_);
      s_.gate.hold(second_stream_);
    }
    s_.start.record(stream_);
    for (std::size_t i = 0; i < count; ++i) {
      copy_on(stream_, Direction::bidir);
    }
    s_.stop.record(stream_);
    s_.second_stop.record(second_stream_);
    if (gated) {
      s_.gate.release();
    }
    const double ms = std::max(elapsed_ms(s_.start, s_.stop), elapsed_ms(s_.start, s_.second_stop));
    if (gated) {
      s_.gate.throw_if_timed_out();
    }
    return ms * 1e-3;
  }

  std::optional<std::string> compare_device(CUdeviceptr ptr, const char* where) {
    GPUBENCH_CU(cuMemcpyDtoH, s_.readback->data(), ptr, bytes_);
    return compare(s_.readback->data(), where);
  }

  std::optional<std::string> compare_host(std::byte* data) {
    if (case_.memory->write_combined) {
      GPUBENCH_CU(cuMemcpyHtoD, s_.device_check->ptr(), data, bytes_);
      return compare_device(s_.device_check->ptr(), "write-combined host");
    }
    return compare(data, "host");
  }

  std::optional<std::string> compare(const std::byte* data, const char* where) const {
    const std::byte* expected = s_.expected->data();
    if (parallel_equal(data, expected, bytes_)) {
      return std::nullopt;
    }
    const auto mismatch = std::mismatch(data, data + bytes_, expected);
    return fmt::format("{} destination differs at byte {} of {}: expected {:#04x}, got {:#04x}",
                       where, mismatch.first - data, bytes_,
                       static_cast<unsigned>(*mismatch.second),
                       static_cast<unsigned>(*mismatch.first));
  }

  CopyCase case_;
  std::size_t bytes_;
  CopyState& s_;
  HostBuffers* host_ = nullptr;
  CUstream stream_;
  CUstream second_stream_;
  int sm_count_;
};

void run_copy(benchmark::State& state, const CopyCase& c, std::size_t bytes) {
  Session& session = bench::session();
  if (const auto why = does_not_fit(bytes)) {
    skip(state, *why);
    return;
  }
  auto& copy_state = session.state<CopyState>();
  copy_state.ensure_capacity(bytes);
  CopyRun run(c, bytes, copy_state, session);
  run.prepare();

  const std::size_t batch = batch_copies(bytes);
  static_cast<void>(run.time_batch(1)); // warm-up
  static_cast<void>(run.time_batch(batch));
  const double total_seconds =
      timed_loop(state, batch, [&] { return run.time_batch(batch); }).total_seconds;
  if (const auto wrong = run.verify()) {
    fail(state, *wrong);
    return;
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(run.bytes_per_op()));
  state.counters["us_per_copy"] = total_seconds * 1e6 / static_cast<double>(state.iterations());
}

std::vector<CopyCase> copy_cases() {
  std::vector<CopyCase> cases;
  for (const Direction direction : {Direction::HtoD, Direction::DtoH}) {
    for (const HostMemoryKind& memory : host_memory_kinds()) {
      cases.push_back({direction, &memory, Api::sync});
      cases.push_back({direction, &memory, Api::async});
      if (memory.device_mapped) {
        cases.push_back({direction, &memory, Api::zerocopy});
      }
    }
  }
  // A sync copy blocks its thread, so two directions at once exist only in async form.
  for (const HostMemoryKind& memory : host_memory_kinds()) {
    cases.push_back({Direction::bidir, &memory, Api::async});
  }
  cases.push_back({Direction::DtoD, nullptr, Api::sync});
  cases.push_back({Direction::DtoD, nullptr, Api::async});
  for (const HostMemoryKind& memory : host_memory_kinds()) {
    if (!memory.page_locked) {
      cases.push_back({Direction::HtoH, &memory, Api::sync});
    }
  }
  return cases;
}

} // namespace

std::vector<std::size_t> default_copy_sizes() {
  std::vector<std::size_t> sizes;
  for (std::size_t bytes = 4; bytes <= std::size_t{1} << 30; bytes *= 4) {
    sizes.push_back(bytes);
  }
  return sizes;
}

void register_copy(const std::vector<std::size_t>& sizes) {
  static const std::vector<CopyCase> cases = copy_cases();
  for (const CopyCase& c : cases) {
    for (const std::size_t bytes : sizes) {
      benchmark::RegisterBenchmark(fmt::format("copy/{}/{}/{}/{}", to_string(c.direction),
                                               c.memory != nullptr ? c.memory->name : "device",
                                               to_string(c.api), bytes)
                                       .c_str(),
                                   [&c, bytes](benchmark::State& state) {
                                     guarded(state, [&] { run_copy(state, c, bytes); });
                                   })
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

} // namespace gpubench::bench
