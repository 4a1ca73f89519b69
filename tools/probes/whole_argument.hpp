// What the probes share that a probe's own file need not spell out: reading a count from the
// command line. Each probe still builds alone (nvcc finds this header beside it).
#pragma once

#include <cerrno>
#include <cstdlib>

// The whole of `text` as a number from `low` to `high`; -1 where it is not one (8abc, 2^66).
inline long whole_argument(const char* text, long low, long high) {
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  const bool whole = end != text && *end == '\0' && errno == 0;
  return whole && value >= low && value <= high ? value : -1;
}
