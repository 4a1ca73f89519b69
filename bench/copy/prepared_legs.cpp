#include "prepared_legs.hpp"

#include "copy_buffers.hpp"
#include "driver_api.hpp"
#include "numa.hpp"
#include "outcome.hpp"
#include "session.hpp"
#include "sizes.hpp"

#include <fmt/format.h>

#include <optional>
#include <string>

namespace gpubench::bench {
namespace {

// Why the far node cannot hold this benchmark's two host buffers of `bytes`, if it cannot.
std::optional<std::string> far_node_lacks(const CopyBuffers& buffers, std::size_t bytes) {
  if (!buffers.far_node) {
    return "no NUMA node but this GPU's own holds memory";
  }
  const auto free_bytes = node_free_bytes(*buffers.far_node);
  if (free_bytes && 2 * bytes > *free_bytes) {
    return fmt::format("{} copies need {} on NUMA node {}, {} is free", format_size(bytes),
                       format_size(2 * bytes), *buffers.far_node, format_size(*free_bytes));
  }
  return std::nullopt;
}

} // namespace

std::vector<CopyLeg> prepared_legs(const CopyCase& c, Session& session, CopyBuffers& buffers,
                                   std::size_t bytes) {
  if (const auto why = copy_room(bytes, buffers.capacity.size())) {
    throw SkipBenchmark(*why);
  }
  buffers.ensure_capacity(bytes);
  if (c.far_node()) {
    if (const auto why = far_node_lacks(buffers, bytes)) {
      throw SkipBenchmark(*why);
    }
  }
  std::vector<CopyLeg> legs;
  try {
    legs = c.legs(buffers, session.stream(), session.second_stream());
  } catch (const NodePlacementError& error) {
    throw SkipBenchmark(error.what()); // the kernel would not place memory on the far node
  }
  for (const CopyLeg& leg : legs) {
    leg.source.fill_expected(buffers, bytes, leg.stream);
    leg.destination.poison(bytes, leg.stream);
  }
  GPUBENCH_CU(cuCtxSynchronize);
  return legs;
}

} // namespace gpubench::bench
