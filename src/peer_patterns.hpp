#pragma once

#include <compare>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace gpubench {

// A copy from one GPU to another, by ordinal.
struct PeerPair {
  int source;
  int destination;
  auto operator<=>(const PeerPair&) const = default;
};

// A traffic pattern between GPUs, as nvbandwidth has them: the copies made at once, and the
// pattern's name in a benchmark name where a pair's <source>to<destination> stands.
struct PeerPattern {
  std::string name;
  std::vector<PeerPair> pairs;
};

// Over `devices` (distinct ordinals, at least two): `allto<d>` (every other device to d, the
// load on d's links) for each d, `<s>toall` (s to every other device) for each s, and `bisect`
// (the i-th device to the one half the list further on, every device sending and receiving at
// once, the load across the switch).
[[nodiscard]] std::vector<PeerPattern> peer_patterns(const std::vector<int>& devices);

// The ordered pairs whose size sweep a default run measures, where the others are measured at
// one size: each way between the first device and the second (neighbours) and between the first
// and the last (the farthest apart in the list); every pair with two devices.
[[nodiscard]] std::vector<PeerPair> representative_pairs(const std::vector<int>& devices);

// The buffers of one size that `copies`, made at once, allocate on each GPU they touch, by
// ordinal: a source and a destination where `holds_size(ordinal)` is false (the GPU's own are
// smaller), and one more on a destination for each copy after the first to land on it (each copy
// lands in a buffer of its own). A GPU that allocates none is absent.
[[nodiscard]] std::map<int, std::size_t>
buffers_to_allocate(const std::vector<PeerPair>& copies,
                    const std::function<bool(int)>& holds_size);

} // namespace gpubench
