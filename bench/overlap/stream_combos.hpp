#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpubench::bench {

// What one stream of an overlap benchmark runs: a copy host to device from pinned memory, one
// device to host into it, or a saxpy over device memory.
enum class StreamWork { htod, dtoh, saxpy };

// The most streams a combination runs at once.
inline constexpr std::size_t max_streams = 4;

// A combination of streams run at once, the <streams> of overlap/<streams>/<bytes>: the works
// in stream order, named as the copy family names directions (HtoD, DtoH), joined by `_`, with
// x<n> for n streams of one work (HtoDx4).
struct StreamCombo {
  std::vector<StreamWork> works;

  [[nodiscard]] std::string name() const;
  // Each stream's label in counter names: htod, dtoh, saxpy, and htod0, htod1, ... where a work
  // runs on several streams.
  [[nodiscard]] std::vector<std::string> labels() const;
  // Copy engines the combination needs to run every copy at once: one a copy stream.
  [[nodiscard]] int copy_engines_needed() const;
};

// HtoD_DtoH, HtoD_saxpy, DtoH_saxpy, HtoD_DtoH_saxpy, HtoDx2, HtoDx4.
[[nodiscard]] const std::vector<StreamCombo>& stream_combos();

[[nodiscard]] std::string_view work_name(StreamWork work);

} // namespace gpubench::bench
