#include "peer_patterns.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gpubench {

std::vector<PeerPattern> peer_patterns(const std::vector<int>& devices) {
  std::vector<PeerPattern> patterns;
  for (const int one : devices) {
    PeerPattern to_one{fmt::format("allto{}", one), {}};
    for (const int other : devices) {
      if (other != one) {
        to_one.pairs.push_back({other, one});
      }
    }
    patterns.push_back(std::move(to_one));
  }
  for (const int one : devices) {
    PeerPattern from_one{fmt::format("{}toall", one), {}};
    for (const int other : devices) {
      if (other != one) {
        from_one.pairs.push_back({one, other});
      }
    }
    patterns.push_back(std::move(from_one));
  }
  PeerPattern bisect{"bisect", {}};
  const std::size_t n = devices.size();
  for (std::size_t i = 0; i < n; ++i) {
    bisect.pairs.push_back({devices[i], devices[(i + n / 2) % n]});
  }
  patterns.push_back(std::move(bisect));
  return patterns;
}

std::vector<PeerPair> representative_pairs(const std::vector<int>& devices) {
  std::vector<PeerPair> pairs;
  if (devices.size() < 2) {
    return pairs;
  }
  const auto both_ways = [&pairs](int a, int b) {
    for (const PeerPair pair : {PeerPair{a, b}, PeerPair{b, a}}) {
      if (std::find(pairs.begin(), pairs.end(), pair) == pairs.end()) {
        pairs.push_back(pair);
      }
    }
  };
  both_ways(devices[0], devices[1]);
  both_ways(devices[0], devices.back());
  return pairs;
}

std::map<int, std::size_t> buffers_to_allocate(const std::vector<PeerPair>& copies,
                                               const std::function<bool(int)>& holds_size) {
  std::map<int, std::size_t> buffers;
  for (const PeerPair& copy : copies) {
    for (const int ordinal : {copy.source, copy.destination}) {
      if (!buffers.contains(ordinal)) {
        buffers[ordinal] = holds_size(ordinal) ? 0 : 2;
      }
    }
  }
  std::map<int, std::size_t> landed;
  for (const PeerPair& copy : copies) {
    if (landed[copy.destination]++ > 0) {
      ++buffers[copy.destination];
    }
  }
  std::erase_if(buffers, [](const auto& entry) { return entry.second == 0; });
  return buffers;
}

} // namespace gpubench
