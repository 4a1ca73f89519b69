#include "chased_memory.hpp"

#include "chase_records.hpp"
#include "outcome.hpp"
#include "session.hpp"
#include "sizes.hpp"

#include <fmt/format.h>

namespace gpubench::bench {
namespace {

// Room left on a device after an allocation: the harness's and the chase's own small buffers.
constexpr std::size_t slack_bytes = std::size_t{16} << 20;

// Skips the benchmark where `bytes` do not fit in `session`'s device memory (its context
// current).
void require_device_bytes(const Session& session, std::size_t bytes, const char* what) {
  const std::size_t free_bytes = free_device_bytes();
  if (bytes + slack_bytes > free_bytes) {
    throw SkipBenchmark(fmt::format("{} needs {} on GPU{}, {} is free", what, format_size(bytes),
                                    session.device().ordinal, format_size(free_bytes)));
  }
}

void require_host_bytes(std::size_t bytes) {
  const std::size_t host_bytes = host_memory_bytes();
  if (bytes > host_bytes / 2) {
    throw SkipBenchmark(fmt::format("a chase through {} of pinned host memory needs more than "
                                    "half of the machine's {}",
                                    format_size(bytes), format_size(host_bytes)));
  }
}

} // namespace

ChasedMemory::ChasedMemory(ChaseWhere where, Session& owner, Session& chaser, std::size_t bytes)
    : owner_(owner), chaser_(chaser) {
  // The chain's successors, one 4-byte slot index per slot, go to the chasing GPU.
  const std::size_t successor_bytes = bytes / chase_slot_bytes * sizeof(std::uint32_t);
  switch (where) {
  case ChaseWhere::device:
    require_device_bytes(chaser, bytes + successor_bytes, "the chased memory and its chain");
    device_.emplace(bytes);
    base_ = device_->ptr();
    break;
  case ChaseWhere::host_pinned:
    require_device_bytes(chaser, successor_bytes, "the chain");
    require_host_bytes(bytes);
    host_.emplace(bytes, CU_MEMHOSTALLOC_DEVICEMAP);
    base_ = host_->device_ptr();
    break;
  case ChaseWhere::peer:
    require_device_bytes(chaser, successor_bytes, "the chain");
    owner.make_current();
    require_device_bytes(owner, bytes, "the chased memory");
    device_.emplace(bytes);
    base_ = device_->ptr();
    chaser.make_current();
    break;
  }
}

ChasedMemory::~ChasedMemory() {
  try {
    owner_.make_current();
    device_.reset();
    chaser_.make_current();
  } catch (const std::exception&) {
    // A faulted context cannot be made current; the release then fails quietly.
  }
}

} // namespace gpubench::bench
