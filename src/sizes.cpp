#include "sizes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <stdexcept>

namespace gpubench {
namespace {

[[noreturn]] void reject(std::string_view text, std::string_view why) {
  throw std::invalid_argument(fmt::format("bad size '{}': {}", text, why));
}

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) {
    return {};
  }
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

std::size_t multiplier(std::string_view suffix, std::string_view text) {
  if (suffix.size() == 3 && suffix.ends_with("iB")) { // KiB, MiB, GiB; "iB" alone is no unit
    suffix.remove_suffix(2);
  } else if (suffix.ends_with('B')) {
    suffix.remove_suffix(1);
  }
  if (suffix.empty()) {
    return 1;
  }
  if (suffix.size() == 1) {
    switch (suffix.front()) {
    case 'K':
    case 'k':
      return std::size_t{1} << 10U;
    case 'M':
    case 'm':
      return std::size_t{1} << 20U;
    case 'G':
    case 'g':
      return std::size_t{1} << 30U;
    default:
      break;
    }
  }
  reject(text, "the unit must be K, M or G");
}

// A range's step, "x2" or more: digits only after the x, and nothing that overflows.
std::size_t parse_factor(std::string_view text, std::string_view item) {
  constexpr std::string_view expected = "a range's step must be x2 or more, as in 1K..1G:x2";
  if (!text.starts_with('x') || text.size() == 1) {
    reject(item, expected);
  }
  std::size_t factor = 0;
  const auto [end, error] = std::from_chars(text.data() + 1, text.data() + text.size(), factor);
  if (error == std::errc::result_out_of_range) {
    reject(item, "the range's step is too large");
  }
  if (error != std::errc{} || end != text.data() + text.size() || factor < 2) {
    reject(item, expected);
  }
  return factor;
}

} // namespace

std::size_t parse_size(std::string_view raw) {
  const std::string_view text = trim(raw);
  if (text.empty()) {
    reject(raw, "empty");
  }
  if (text.front() == '-') {
    reject(text, "negative");
  }
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error == std::errc::result_out_of_range) {
    reject(text, "too large");
  }
  if (error != std::errc{} || end == text.data()) {
    reject(text, "not a number");
  }
  const std::size_t scale =
      multiplier(text.substr(static_cast<std::size_t>(end - text.data())), text);
  if (value == 0) {
    reject(text, "zero");
  }
  if (value > std::numeric_limits<std::size_t>::max() / scale) {
    reject(text, "too large");
  }
  return value * scale;
}

std::vector<std::size_t> parse_size_list(std::string_view text) {
  if (trim(text).empty()) {
    throw std::invalid_argument("empty size list");
  }
  std::vector<std::size_t> sizes;
  const auto add = [&sizes](std::size_t size) {
    if (std::find(sizes.begin(), sizes.end(), size) == sizes.end()) {
      sizes.push_back(size);
    }
  };
  std::size_t begin = 0;
  while (begin != std::string_view::npos) {
    const auto comma = text.find(',', begin);
    const std::string_view item = trim(text.substr(begin, comma - begin));
    begin = comma == std::string_view::npos ? comma : comma + 1;
    if (item.empty()) {
      throw std::invalid_argument("an empty entry (a leading, trailing or doubled comma)");
    }
    const auto dots = item.find("..");
    if (dots == std::string_view::npos) {
      add(parse_size(item));
      continue;
    }
    std::string_view high_text = item.substr(dots + 2);
    if (high_text.find("..") != std::string_view::npos) {
      reject(item, "a range has one '..' (e.g. 1K..1G:x2)");
    }
    std::size_t factor = 2;
    if (const auto colon = high_text.find(':'); colon != std::string_view::npos) {
      factor = parse_factor(trim(high_text.substr(colon + 1)), item);
      high_text = high_text.substr(0, colon);
    }
    const std::size_t low = parse_size(item.substr(0, dots));
    const std::size_t high = parse_size(high_text);
    if (low > high) {
      reject(item, "the range's start is above its end");
    }
    for (std::size_t size = low; size <= high; size *= factor) {
      add(size);
      if (size > high / factor) {
        break;
      }
    }
  }
  return sizes;
}

std::string format_size(std::size_t bytes) {
  constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  std::size_t unit = 0;
  while (unit + 1 < std::size(units) && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return fmt::format("{}{}", bytes, units[unit]);
}

} // namespace gpubench
