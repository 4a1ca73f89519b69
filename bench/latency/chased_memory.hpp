#pragma once

#include "memory.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace gpubench::bench {

class Session;

// Where a chase's memory lies, seen from the GPU that chases it.
enum class ChaseWhere {
  device,      // its own device memory
  host_pinned, // pinned host memory mapped into it (cuMemHostAlloc, DEVICEMAP), read over PCIe
  peer,        // another GPU's device memory, read through peer access (NVLink where there is one)
};

// The memory one chase runs through, allocated for one benchmark and freed after it.
class ChasedMemory {
public:
  // `bytes` of the memory `where` names: device memory of `owner` (the chasing GPU itself for
  // `device`, its peer for `peer`) or pinned host memory; `chaser`'s context must be current.
  // Throws SkipBenchmark where they, with the chain's successors on `chaser`, do not fit.
  ChasedMemory(ChaseWhere where, Session& owner, Session& chaser, std::size_t bytes);
  ChasedMemory(const ChasedMemory&) = delete;
  ChasedMemory& operator=(const ChasedMemory&) = delete;
  ChasedMemory(ChasedMemory&&) = delete;
  ChasedMemory& operator=(ChasedMemory&&) = delete;
  // Frees device memory in its own device's context, as a session frees its own, then makes
  // the chasing GPU's current again.
  ~ChasedMemory();

  // The chasing GPU's address for the memory.
  [[nodiscard]] std::uint64_t base() const noexcept { return base_; }

private:
  Session& owner_;
  Session& chaser_;
  std::optional<DeviceBuffer> device_;
  std::optional<PinnedHostBuffer> host_;
  std::uint64_t base_ = 0;
};

} // namespace gpubench::bench
