#pragma once

#include "tile_buffers.hpp"

#include <cstddef>
#include <map>
#include <utility>

namespace gpubench::bench {

class Session;

// What one contiguous copy of a tile's bytes achieves, the reference a 2D copy of them is read
// against: cuMemcpyHtoDAsync from the pinned region, or cuMemcpyDtoHAsync into it, of `bytes`
// between the same regions the tiles use. Measured once per direction and size per process, as
// saxpy's memory ceiling is: gated batches, the harness's warm-up and stopping rule, the median
// batch. The copy is verified (every byte arrived) before its rate is kept.
class ContiguousRates {
public:
  explicit ContiguousRates(Session& session) : session_(session) {}

  // Bytes a second; `buffers` hold the expected bytes in the direction's source region, and
  // the destination region's first `bytes` are overwritten.
  [[nodiscard]] double bytes_per_second(bool to_device, std::size_t bytes, TileBuffers& buffers);

private:
  Session& session_;
  std::map<std::pair<bool, std::size_t>, double> rates_;
};

} // namespace gpubench::bench
