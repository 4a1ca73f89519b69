#include "say.hpp"

#include "printable.hpp"

#include <cstdio>

namespace gpubench::bench {

void say(const std::string& message) {
  const std::string line = printable(message);
  static_cast<void>(std::fprintf(stderr, "gpubench: %s\n", line.c_str()));
}

} // namespace gpubench::bench
