// managed/<direction>/<how>/.../<bytes>: managed memory (cudaMallocManaged) moving between the
// host and the device, each benchmark on a fresh buffer of <bytes> written with random bytes:
//
//   managed/HtoD/prefetch                 cudaMemPrefetchAsync of host-resident pages to the
//   managed/DtoH/prefetch                 device, and of device-resident pages to the host
//   managed/HtoD/gpu_touch/<order>/granule:<g>/<advice>
//                                         a kernel reading host-resident pages, which fault and
//                                         migrate (managed_touch.cuh): each block one granule of
//                                         <g> bytes, the granules in <order> (page_order.hpp),
//                                         the buffer given <advice> (managed_memory.hpp)
//   managed/DtoH/host_touch/<order>       the host reading device-resident pages, 4 KiB at a
//                                         time in <order>, which fault and migrate back
//
// Every batch is one operation over the whole buffer and starts from the residency it measures:
// the harness's prepare step, outside the timed region, moves the pages back (a prefetch, and
// for the kernel's touch a host write per page, which drops a read-mostly copy on the device).
// Prefetches and the kernel's touch are timed by events, the host's touch by the host clock;
// all are marked host_timed, as the driver's fault handling and page-table work run on the host
// CPU, and the prefetches are not gated (a prefetch may hold the calling thread while the driver
// works). Verified after the timed loop, on the side that should hold the bytes: a prefetch to
// the device by a kernel reading the pages there into device memory, read back and compared;
// one to the host by the host comparing them in place; each touch by comparing the copy of every
// byte it read.
#include "byte_sizes.hpp"
#include "driver_api.hpp"
#include "family.hpp"
#include "harness.hpp"
#include "host_bytes.hpp"
#include "managed_bytes.hpp"
#include "managed_memory.hpp"
#include "managed_touch.cuh"
#include "memory.hpp"
#include "options.hpp"
#include "page_order.hpp"
#include "registry.hpp"
#include "sizes.hpp"
#include "touch_launch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpubench::bench {
namespace {

constexpr unsigned char poison_byte = 0xA5;
constexpr std::uint64_t walk_seed = 0x3A7A6E;
// The host's page: the granule of its touch.
constexpr std::size_t host_page_bytes = 4096;
// The granule of the kernel that reads a prefetched buffer back on the device.
constexpr std::size_t check_granule_bytes = std::size_t{2} << 20;

// Why `bytes` cannot run here, if it cannot: on the device, the managed buffer's pages and the
// copy of them; on the host, the managed buffer's pages, the expected bytes, the readback and
// the host's copy, in at most half the host's memory. The family's buffers held for
// `held_bytes`, a smaller size, are freed before larger ones are made: their memory counts as
// free; at a size they hold already, only the managed buffer is new.
std::optional<std::string> does_not_fit(std::size_t bytes, std::size_t held_bytes) {
  const bool grows = bytes > held_bytes;
  const std::size_t device_buffers = grows ? 2 : 1;
  const std::size_t free_bytes = free_device_bytes() + (grows ? held_bytes : 0);
  if (bytes > free_bytes / device_buffers) {
    return fmt::format("{} of managed memory needs {} that of device memory, {} is free",
                       format_size(bytes), grows ? "twice" : "as much again",
                       format_size(free_bytes));
  }
  constexpr std::size_t host_buffers = 4;
  const std::size_t host_bytes = host_memory_bytes();
  if (bytes > host_bytes / 2 / host_buffers) {
    return fmt::format("{} of managed memory needs four times that of host memory, at most half "
                       "the machine's {}",
                       format_size(bytes), format_size(host_bytes));
  }
  return std::nullopt;
}

// The family's buffers for `bytes`, once the device and the size are known to be able to run.
ManagedBytes& buffers_for(Harness& h, std::size_t bytes, bool host_touch) {
  const int ordinal = h.session().device().ordinal;
  if (const auto why = managed_unsupported(ordinal)) {
    throw SkipBenchmark(*why);
  }
  if (host_touch) {
    if (const auto why = host_touch_unsupported(ordinal)) {
      throw SkipBenchmark(*why);
    }
  }
  auto& buffers = h.session().state<ManagedBytes>();
  if (const auto why = does_not_fit(bytes, buffers.capacity.size())) {
    throw SkipBenchmark(*why);
  }
  buffers.ensure_capacity(bytes);
  return buffers;
}

// A fresh managed buffer of `bytes` given `advice`, holding the expected bytes, written by the
// host: every page resident on the host.
ManagedBuffer written_buffer(const ManagedBytes& buffers, std::size_t bytes, ManagedAdvice advice) {
  ManagedBuffer managed(bytes);
  managed.advise(advice);
  parallel_copy(managed.data(), buffers.expected->data(), bytes);
  return managed;
}

// A walk of a buffer's granules on the device, for the kernel.
struct DeviceWalk {
  DeviceWalk(std::size_t bytes, std::size_t granule, PageOrder order)
      : granule_bytes(granule), granules(*granule_count(bytes, granule)), walk(granules * 4) {
    const std::vector<std::uint32_t> host = page_walk(granules, order, walk_seed);
    upload(walk.ptr(), host.data(), granules * sizeof(std::uint32_t));
  }
  std::size_t granule_bytes;
  std::size_t granules;
  DeviceBuffer walk;
};

void touch(const ManagedBuffer& managed, const ManagedBytes& buffers, const DeviceWalk& walk,
           int sm_count, CUstream stream) {
  touch_launch(managed.data(), buffers.device_copy->ptr(), walk.walk.as<unsigned int>(),
               walk.granule_bytes, managed.bytes(), walk.granules, sm_count, stream);
}

// Where the device copy of `bytes` differs from the expected bytes, if it does.
std::optional<std::string> device_copy_mismatch(const ManagedBytes& buffers, std::size_t bytes,
                                                const char* where) {
  GPUBENCH_CU(cuCtxSynchronize);
  GPUBENCH_CU(cuMemcpyDtoH, buffers.readback->data(), buffers.device_copy->ptr(), bytes);
  return compare_bytes(buffers.readback->data(), buffers.expected->data(), bytes, where);
}

void report(Harness& h, std::size_t bytes, const LoopTimes& times, const char* counter) {
  benchmark::State& state = h.state();
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes));
  state.counters[counter] = times.seconds_per_op * 1e6;
}

void measure_prefetch(bool to_device, Harness& h, std::size_t bytes) {
  ManagedBytes& buffers = buffers_for(h, bytes, false);
  Session& session = h.session();
  const int ordinal = session.device().ordinal;
  const CUstream stream = h.stream();
  const ManagedBuffer managed = written_buffer(buffers, bytes, ManagedAdvice::none);
  const auto to_host = [&] { managed.prefetch_to_host(stream); };
  const auto to_gpu = [&] { managed.prefetch_to_device(ordinal, stream); };
  const auto move_back = [&] {
    to_device ? to_host() : to_gpu();
    GPUBENCH_CU(cuStreamSynchronize, stream);
  };
  if (!to_device) {
    move_back();
  }
  const LoopTimes times = h.exec(
      GpuBatches{.ops = 1, .gated = false, .host_paced = true, .label = "not_gated"},
      [&] { to_device ? to_gpu() : to_host(); }, move_back);
  GPUBENCH_CU(cuCtxSynchronize);
  if (to_device) {
    // The GPU reads the pages where the last prefetch left them.
    const DeviceWalk walk(bytes, check_granule_bytes, PageOrder::sequential);
    GPUBENCH_CU(cuMemsetD8Async, buffers.device_copy->ptr(), poison_byte, bytes, stream);
    touch(managed, buffers, walk, session.device().sm_count, stream);
    Harness::verify(device_copy_mismatch(buffers, bytes, "device (read by a kernel)"));
  } else {
    Harness::verify(compare_bytes(managed.data(), buffers.expected->data(), bytes, "host"));
  }
  report(h, bytes, times, "us_per_prefetch");
}

void measure_gpu_touch(PageOrder order, std::size_t granule, ManagedAdvice advice, Harness& h,
                       std::size_t bytes) {
  if (!granule_count(bytes, granule)) {
    throw SkipBenchmark(fmt::format("{} in granules of {} makes more granules than a walk holds",
                                    format_size(bytes), format_size(granule)));
  }
  ManagedBytes& buffers = buffers_for(h, bytes, false);
  Session& session = h.session();
  const CUstream stream = h.stream();
  const ManagedBuffer managed = written_buffer(buffers, bytes, advice);
  const DeviceWalk walk(bytes, granule, order);
  GPUBENCH_CU(cuMemsetD8Async, buffers.device_copy->ptr(), poison_byte, bytes, stream);
  GPUBENCH_CU(cuCtxSynchronize);
  const int sm_count = session.device().sm_count;
  const LoopTimes times = h.exec(
      GpuBatches{.ops = 1, .host_paced = true},
      [&] { touch(managed, buffers, walk, sm_count, stream); },
      [&] { managed.return_to_host(stream); });
  Harness::verify(device_copy_mismatch(buffers, bytes, "device copy of the kernel's reads"));
  report(h, bytes, times, "us_per_touch");
}

void measure_host_touch(PageOrder order, Harness& h, std::size_t bytes) {
  ManagedBytes& buffers = buffers_for(h, bytes, true);
  const int ordinal = h.session().device().ordinal;
  const CUstream stream = h.stream();
  const ManagedBuffer managed = written_buffer(buffers, bytes, ManagedAdvice::none);
  const auto to_gpu = [&] {
    managed.prefetch_to_device(ordinal, stream);
    GPUBENCH_CU(cuStreamSynchronize, stream);
  };
  to_gpu();
  const std::vector<std::uint32_t> walk =
      page_walk(*granule_count(bytes, host_page_bytes), order, walk_seed);
  std::byte* const copy = buffers.host_copy->data();
  parallel_fill(copy, poison_byte, bytes);
  const LoopTimes times = h.exec(
      HostClock{.ops = 1},
      [&] {
        for (const std::uint32_t page : walk) {
          const std::size_t offset = std::size_t{page} * host_page_bytes;
          std::memcpy(copy + offset, managed.data() + offset,
                      std::min(host_page_bytes, bytes - offset));
        }
      },
      to_gpu);
  Harness::verify(
      compare_bytes(copy, buffers.expected->data(), bytes, "host copy of the host's reads"));
  report(h, bytes, times, "us_per_touch");
}

constexpr std::string_view sizes_name = "--managed-sizes";
constexpr std::string_view granules_name = "--managed-granules";

FamilyFlag managed_sizes_flag() {
  return {std::string(sizes_name), "2M,64M",
          "managed memory sizes: a list or ranges, e.g. 2M,64M,256M or 2M..1G:x4",
          [](std::string_view value) { static_cast<void>(byte_size_args(value, sizes_name)); }};
}

// A list of granules, each a whole number of the host's 4 KiB pages; throws UsageError naming
// the flag for one that is not.
std::vector<std::int64_t> granule_args(std::string_view value) {
  std::vector<std::int64_t> granules = byte_size_args(value, granules_name);
  for (const std::int64_t granule : granules) {
    if (granule % static_cast<std::int64_t>(host_page_bytes) != 0) {
      throw UsageError(fmt::format("{}={}: a granule of {} bytes is not a whole number of {}-byte "
                                   "pages",
                                   granules_name, value, granule, host_page_bytes));
    }
  }
  return granules;
}

FamilyFlag granules_flag() {
  return {std::string(granules_name), "4K,64K,2M",
          "managed memory granules a kernel block touches, each a multiple of 4K: e.g. 4K,64K,2M",
          [](std::string_view value) { static_cast<void>(granule_args(value)); }};
}

// What the managed family's flags choose.
struct ManagedOptions {
  std::vector<std::int64_t> sizes;    // bytes
  std::vector<std::int64_t> granules; // bytes
};

void declare(Registry& registry, const ManagedOptions& options) {
  for (const bool to_device : {true, false}) {
    registry.add(fmt::format("managed/{}/prefetch", to_device ? "HtoD" : "DtoH"),
                 [to_device](Harness& h, std::int64_t bytes) {
                   measure_prefetch(to_device, h, static_cast<std::size_t>(bytes));
                 },
                 {options.sizes, ""});
  }
  for (const PageOrder order : {PageOrder::sequential, PageOrder::random}) {
    for (const std::int64_t granule : options.granules) {
      for (const ManagedAdvice advice :
           {ManagedAdvice::none, ManagedAdvice::read_mostly, ManagedAdvice::preferred_host}) {
        registry.add(fmt::format("managed/HtoD/gpu_touch/{}/granule:{}/{}", page_order_name(order),
                                 granule, advice_name(advice)),
                     [order, granule, advice](Harness& h, std::int64_t bytes) {
                       measure_gpu_touch(order, static_cast<std::size_t>(granule), advice, h,
                                         static_cast<std::size_t>(bytes));
                     },
                     {options.sizes, ""});
      }
    }
  }
  for (const PageOrder order : {PageOrder::sequential, PageOrder::random}) {
    registry.add(fmt::format("managed/DtoH/host_touch/{}", page_order_name(order)),
                 [order](Harness& h, std::int64_t bytes) {
                   measure_host_touch(order, h, static_cast<std::size_t>(bytes));
                 },
                 {options.sizes, ""});
  }
}

Family managed_family() {
  return {
      .name = "managed",
      .order = 34,
      .grammar = "managed/<direction>/<how>[/<order>][/granule:<bytes>/<advice>]/<bytes>",
      .argument = Argument{.key = "", .unit = "bytes"},
      .figures =
          {{.counter = "bytes_per_second", .unit = "GB/s", .scale = 1e-9, .better = Better::higher},
           {.counter = "us_per_prefetch", .unit = "µs", .scale = 1.0, .better = Better::lower},
           {.counter = "us_per_touch", .unit = "µs", .scale = 1.0, .better = Better::lower}},
      .kernels = {{"managed_touch", reinterpret_cast<const void*>(managed_touch)}},
      .flags = {managed_sizes_flag(), granules_flag()},
      .configure =
          [](const FlagValues& flags) {
            const ManagedOptions options{
                .sizes = byte_size_args(flags.of(managed_sizes_flag()), sizes_name),
                .granules = granule_args(flags.of(granules_flag()))};
            return FamilyBenchmarks{.declare = [options](Registry& r) { declare(r, options); }};
          },
  };
}

} // namespace

GPUBENCH_FAMILY(managed_family);

} // namespace gpubench::bench
