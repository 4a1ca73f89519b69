#include "persistent_echo.hpp"

#include "cuda_error.hpp"
#include "driver_api.hpp"
#include "family.hpp"

#include <fmt/format.h>

#include <atomic>
#include <new>
#include <stdexcept>

namespace gpubench::bench {
namespace {

// The mailbox is shared with the GPU: every access the host makes to it is atomic, so the
// compiler neither caches a field in a register nor moves a load or a store across another.
std::atomic_ref<std::uint64_t> shared(std::uint64_t& field) {
  return std::atomic_ref<std::uint64_t>(field);
}

EchoExit exit_reason(EchoMailbox& box) {
  return static_cast<EchoExit>(std::atomic_ref<std::uint32_t>(box.exit_reason).load());
}

const char* describe(EchoExit why) {
  switch (why) {
  case EchoExit::running:
    return "still running";
  case EchoExit::stopped:
    return "stopped by the host";
  case EchoExit::idle:
    return "no request within its idle limit";
  }
  return "an unknown reason";
}

// The clock is read once every this many polls of the answer, so a poll is a load, not a load
// and a clock read, while a timeout is still seen within microseconds.
constexpr std::uint64_t polls_per_clock_read = 1024;

} // namespace

PersistentEcho::PersistentEcho()
    : memory_(sizeof(EchoMailbox), CU_MEMHOSTALLOC_DEVICEMAP),
      box_(::new (memory_.data()) EchoMailbox{}) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  CUdeviceptr box = memory_.device_ptr();
  auto idle_ns = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(idle_limit).count());
  void* params[] = {&box, &idle_ns};
  GPUBENCH_CU(cuLaunchKernel, driver_function(reinterpret_cast<const void*>(persistent_echo)), 1, 1,
              1, 1, 1, 1, 0, stream_.get(), params, nullptr);
}

PersistentEcho::~PersistentEcho() {
  if (stopped_) {
    return;
  }
  // The kernel returns at the stop request, or at its idle limit whatever happens here, so the
  // wait ends; its error, if any, is for stop() to report, not a destructor.
  shared(box_->request).store(echo_stop);
  if (const DriverApi* api = loaded_driver_api(); api != nullptr && api->cuStreamSynchronize) {
    static_cast<void>(api->cuStreamSynchronize(stream_.get()));
  }
}

EchoSample PersistentEcho::serve() {
  if (stopped_) {
    throw std::logic_error("a work item handed to a stopped persistent kernel");
  }
  const std::uint64_t item = ++sent_;
  const std::int64_t sent_ns = host_clock_ns();
  shared(box_->request).store(item);
  const std::int64_t give_up_ns =
      sent_ns + std::chrono::duration_cast<std::chrono::nanoseconds>(answer_timeout).count();
  for (std::uint64_t polls = 1;; ++polls) {
    const std::uint64_t answer = shared(box_->answer).load();
    if (answer == item) {
      break;
    }
    if (answer != item - 1) {
      throw std::runtime_error(
          fmt::format("the persistent kernel answered {} to work item {}", answer, item));
    }
    if (polls % polls_per_clock_read == 0) {
      if (const EchoExit why = exit_reason(*box_); why != EchoExit::running) {
        throw std::runtime_error(
            fmt::format("the persistent kernel returned ({}) before answering work item {}",
                        describe(why), item));
      }
      if (host_clock_ns() > give_up_ns) {
        throw std::runtime_error(
            fmt::format("the persistent kernel gave no answer to work item {} within {} s", item,
                        answer_timeout.count()));
      }
    }
  }
  const std::int64_t seen_ns = host_clock_ns();
  return {
      .host_sent_ns = sent_ns, .gpu_ns = shared(box_->seen_at_ns).load(), .host_seen_ns = seen_ns};
}

std::optional<std::string> PersistentEcho::finish() {
  if (!stopped_) {
    stopped_ = true;
    shared(box_->request).store(echo_stop);
    GPUBENCH_CU(cuStreamSynchronize, stream_.get());
  }
  const std::uint64_t served = shared(box_->served).load();
  const std::uint64_t misordered = shared(box_->misordered).load();
  if (const EchoExit why = exit_reason(*box_); why != EchoExit::stopped) {
    return fmt::format("the persistent kernel returned with {} after {} of {} work items",
                       describe(why), served, sent_);
  }
  if (served != sent_ || misordered != 0) {
    return fmt::format("{} work items sent, the persistent kernel served {}, {} out of order",
                       sent_, served, misordered);
  }
  return std::nullopt;
}

} // namespace gpubench::bench
