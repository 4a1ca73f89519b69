// pin/<api>/<step>/<bytes>: what page-locking host memory costs. `register` pins memory the
// program malloc'd and touched (cudaHostRegister) and unpins it (cudaHostUnregister);
// `malloc_host` and `host_alloc[_portable|_mapped|_wc]` allocate pinned memory (cudaMallocHost,
// cudaHostAlloc with its flags) and free it (cudaFreeHost). Step `pin` times the pinning, step
// `unpin` or `free` the release, apart: each batch is prepared outside the timed region (every
// slot released before a batch of pins, pinned before a batch of releases). The host clock:
// pinning is work the host does, whatever the GPU. Verified outside the timed loop: the runtime
// calls every slot page-locked with the API's flags, a copy to the device and back carries its
// random bytes, and the operations made are the ones the harness counted.
#include "byte_sizes.hpp"
#include "family.hpp"
#include "harness.hpp"
#include "memory.hpp"
#include "options.hpp"
#include "pin_apis.hpp"
#include "pin_check.hpp"
#include "pin_slots.hpp"
#include "registry.hpp"
#include "sizes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace gpubench::bench {
namespace {

// Pins per timed batch: about 64 MiB pinned a batch, at most 64 regions, so a batch of small
// pins lasts long enough to read on the host clock and the slots' memory stays small.
std::size_t pins_per_batch(std::size_t bytes) {
  return std::clamp<std::size_t>((std::size_t{64} << 20) / bytes, 1, 64);
}

// The memory the kernel could give without swapping (/proc/meminfo's MemAvailable): pinned
// pages cannot be swapped out, so a pin is sized against it, not against the machine's total.
std::size_t available_host_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    std::size_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") {
      return kib * 1024;
    }
  }
  return host_memory_bytes();
}

// Why `bytes` cannot be pinned here, if it cannot: `slots` regions of it pinned at once, the
// random bytes the check copies and, for write-combined memory, its readback, in at most half
// the host memory available; on the device, one buffer the check copies to.
std::optional<std::string> does_not_fit(const PinApi& api, std::size_t bytes, std::size_t slots) {
  const std::size_t buffers = slots + (api.write_combined() ? 2 : 1);
  const std::size_t available = available_host_bytes();
  if (bytes > available / 2 / buffers) {
    const std::string need = bytes > std::numeric_limits<std::size_t>::max() / buffers
                                 ? fmt::format("{} x {}", buffers, format_size(bytes))
                                 : format_size(buffers * bytes);
    return fmt::format("{} pins need {} of host memory, at most half the {} available",
                       format_size(bytes), need, format_size(available));
  }
  const std::size_t free_device = free_device_bytes();
  if (bytes > free_device) {
    return fmt::format("{} pins need {} of device memory for the copy that checks them, {} is "
                       "free",
                       format_size(bytes), format_size(bytes), format_size(free_device));
  }
  return std::nullopt;
}

// Every slot page-locked as `api` says and carrying a copy's bytes there and back.
void verify_pinned(const PinApi& api, const PinSlots& slots, PinCheckBuffers& check,
                   CUstream stream) {
  for (const auto& slot : slots.slots()) {
    Harness::verify(pinned_mismatch(api, slot->data()));
    Harness::verify(round_trip_mismatch(api, slot->data(), check, stream));
  }
}

// Every slot released: memory the program keeps reads as unregistered again.
void verify_released(const PinSlots& slots) {
  for (const auto& slot : slots.slots()) {
    if (slot->pinned()) {
      Harness::verify("a slot is still pinned after its batch of releases");
    }
    if (slot->existing() != nullptr) {
      Harness::verify(released_mismatch(slot->existing()));
    }
  }
}

// The operations the body made are the ones the harness counted: a batch that pinned or
// released nothing would time nothing.
void verify_made(std::size_t made, const Harness& h, const std::string& step) {
  if (made != h.ops_performed()) {
    Harness::verify(fmt::format("{} {} operations made, the harness counted {}", made, step,
                                h.ops_performed()));
  }
}

void measure_pin(const PinApi& api, bool pins, Harness& h, std::size_t bytes) {
  const std::size_t count = pins_per_batch(bytes);
  if (const auto why = does_not_fit(api, bytes, count)) {
    throw SkipBenchmark(*why);
  }
  PinCheckBuffers check(bytes, api.write_combined());
  PinSlots slots(api, bytes, count);
  const std::string step = pins ? "pin" : api.release_name();
  LoopTimes times;
  if (pins) {
    times = h.exec(
        HostClock{.ops = count}, [&] { slots.pin_next(); }, [&] { slots.release_all(); });
    verify_made(slots.pins_made(), h, step);
    verify_pinned(api, slots, check, h.stream());
  } else {
    slots.pin_all();
    verify_pinned(api, slots, check, h.stream());
    times = h.exec(
        HostClock{.ops = count}, [&] { slots.release_next(); }, [&] { slots.pin_all(); });
    verify_made(slots.releases_made(), h, step);
    verify_released(slots);
  }
  benchmark::State& state = h.state();
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes));
  state.counters["us_per_" + step] = times.seconds_per_op * 1e6;
}

constexpr std::string_view pin_sizes_name = "--pin-sizes";

FamilyFlag pin_sizes_flag() {
  return {std::string(pin_sizes_name), "4K,1M,64M,256M",
          "pin sizes: a list or ranges, e.g. 4K,1M,64M,1G or 4K..16G:x4",
          [](std::string_view value) { static_cast<void>(byte_size_args(value, pin_sizes_name)); }};
}

// What the pin family's flags choose.
struct PinOptions {
  std::vector<std::int64_t> sizes; // bytes
};

Family pin_family() {
  return {
      .name = "pin",
      .order = 35,
      .grammar = "pin/<api>/<step>/<bytes>",
      .argument = Argument{.key = "", .unit = "bytes"},
      .figures =
          {{.counter = "bytes_per_second", .unit = "GB/s", .scale = 1e-9, .better = Better::higher},
           {.counter = "us_per_pin", .unit = "µs", .scale = 1.0, .better = Better::lower},
           {.counter = "us_per_unpin", .unit = "µs", .scale = 1.0, .better = Better::lower},
           {.counter = "us_per_free", .unit = "µs", .scale = 1.0, .better = Better::lower}},
      .kernels = {},
      .flags = {pin_sizes_flag()},
      .configure =
          [](const FlagValues& flags) {
            const PinOptions options{
                .sizes = byte_size_args(flags.of(pin_sizes_flag()), pin_sizes_name)};
            return FamilyBenchmarks{.declare = [options](Registry& registry) {
              for (const auto& api : pin_apis()) {
                for (const bool pins : {true, false}) {
                  registry.add(
                      fmt::format("pin/{}/{}", api->name(), pins ? "pin" : api->release_name()),
                      [&api = *api, pins](Harness& h, std::int64_t bytes) {
                        measure_pin(api, pins, h, static_cast<std::size_t>(bytes));
                      },
                      {options.sizes, ""});
                }
              }
            }};
          },
  };
}

} // namespace

GPUBENCH_FAMILY(pin_family);

} // namespace gpubench::bench
