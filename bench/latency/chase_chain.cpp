#include "chase_chain.hpp"

#include "chase_launch.hpp"
#include "driver_api.hpp"
#include "memory.hpp"
#include "session.hpp"

namespace gpubench::bench {
namespace {

// Every ring is drawn from the same seed: a size chases the same cycle in every run.
constexpr std::uint64_t ring_seed = 0x6c61'7465'6e63'7921;

// Stretches of the verifying chase: with 8192 threads in flight, a stretch of 1 GiB's 8 Mi
// slots is 1024 loads.
constexpr std::size_t verify_stretches = 8192;

} // namespace

const ChaseRing& ChaseRings::of(std::size_t slots) {
  if (!ring_ || ring_->slots() != slots) {
    ring_.reset();
    ring_.emplace(slots, ring_seed);
  }
  return *ring_;
}

void write_successors(const std::vector<std::uint32_t>& successor, std::uint64_t base,
                      Session& chaser) {
  const DeviceBuffer device_successor(successor.size() * sizeof(std::uint32_t));
  upload(device_successor.ptr(), successor.data(), successor.size() * sizeof(std::uint32_t));
  chase_link_launch(base, device_successor.ptr(), successor.size(), chaser.device().sm_count,
                    chaser.stream());
  GPUBENCH_CU(cuStreamSynchronize, chaser.stream());
}

void write_chain(const ChaseRing& ring, std::uint64_t base, Session& chaser) {
  write_successors(ring.successors(), base, chaser);
}

std::optional<std::string> chase_full_cycle(const ChaseRing& ring, std::uint64_t base,
                                            Session& chaser) {
  const std::vector<ChaseSegment> segments = ring.segments(base, verify_stretches);
  const DeviceBuffer device_segments(segments.size() * sizeof(ChaseSegment));
  const DeviceBuffer device_walks(segments.size() * sizeof(SegmentWalk));
  upload(device_segments.ptr(), segments.data(), segments.size() * sizeof(ChaseSegment));
  GPUBENCH_CU(cuMemsetD8Async, device_walks.ptr(), 0, segments.size() * sizeof(SegmentWalk),
              chaser.stream());
  chase_segments_launch(base, ring.slots(), device_segments.ptr(), device_walks.ptr(),
                        static_cast<std::uint32_t>(segments.size()),
                        slot_address(base, ring.slot_after(0)), chaser.stream());
  std::vector<SegmentWalk> walks(segments.size());
  GPUBENCH_CU(cuStreamSynchronize, chaser.stream());
  GPUBENCH_CU(cuMemcpyDtoH, walks.data(), device_walks.ptr(), walks.size() * sizeof(SegmentWalk));
  return check_full_cycle(ring, base, segments, walks);
}

} // namespace gpubench::bench
