#include "stream_combos.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace gpubench::bench {

std::string_view work_name(StreamWork work) {
  switch (work) {
  case StreamWork::htod:
    return "HtoD";
  case StreamWork::dtoh:
    return "DtoH";
  case StreamWork::saxpy:
    return "saxpy";
  }
  return "unknown";
}

std::string StreamCombo::name() const {
  const bool all_one_work =
      works.size() > 1 && std::ranges::all_of(works, [&](StreamWork w) { return w == works[0]; });
  if (all_one_work) {
    return fmt::format("{}x{}", work_name(works[0]), works.size());
  }
  std::vector<std::string_view> names;
  for (const StreamWork work : works) {
    names.push_back(work_name(work));
  }
  return fmt::format("{}", fmt::join(names, "_"));
}

std::vector<std::string> StreamCombo::labels() const {
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < works.size(); ++i) {
    std::string label(work_name(works[i]));
    std::ranges::transform(label, label.begin(), [](char c) {
      return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    });
    const auto same = std::ranges::count(works, works[i]);
    if (same > 1) {
      const auto before =
          std::count(works.begin(), works.begin() + static_cast<std::ptrdiff_t>(i), works[i]);
      label += std::to_string(before);
    }
    labels.push_back(label);
  }
  return labels;
}

int StreamCombo::copy_engines_needed() const {
  return static_cast<int>(
      std::ranges::count_if(works, [](StreamWork w) { return w != StreamWork::saxpy; }));
}

const std::vector<StreamCombo>& stream_combos() {
  using enum StreamWork;
  static const std::vector<StreamCombo> combos{
      {{htod, dtoh}},        {{htod, saxpy}}, {{dtoh, saxpy}},
      {{htod, dtoh, saxpy}}, {{htod, htod}},  {{htod, htod, htod, htod}},
  };
  return combos;
}

} // namespace gpubench::bench
