#include "say.hpp"

#include "printable.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace gpubench::bench {
namespace {

// A line longer than this (a --sizes list or a path of 100 000 characters repeated in its error)
// is shown by its start, which names the flag, and its end, which names the problem.
constexpr std::size_t max_line_bytes = 2000;
constexpr std::size_t head_bytes = 1000;
constexpr std::size_t tail_bytes = 800;

bool continues_a_character(char byte) {
  return (static_cast<unsigned char>(byte) & 0xC0U) == 0x80U;
}

// `line` within max_line_bytes, cut between whole UTF-8 characters.
std::string within_a_line(const std::string& line) {
  if (line.size() <= max_line_bytes) {
    return line;
  }
  std::size_t head_end = head_bytes;
  while (head_end > 0 && continues_a_character(line[head_end])) {
    --head_end;
  }
  std::size_t tail_start = line.size() - tail_bytes;
  while (tail_start < line.size() && continues_a_character(line[tail_start])) {
    ++tail_start;
  }
  return fmt::format("{} [... {} bytes left out ...] {}", line.substr(0, head_end),
                     tail_start - head_end, line.substr(tail_start));
}

} // namespace

void say(const std::string& message) {
  const std::string line = within_a_line(printable(message));
  static_cast<void>(std::fprintf(stderr, "gpubench: %s\n", line.c_str()));
}

} // namespace gpubench::bench
