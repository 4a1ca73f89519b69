#pragma once

// A program run under resource limits, as `ulimit -v` or `ulimit -f` in a shell would start it:
// setrlimit in the child between fork and exec, so that the limits hold from the program's
// first mapping on and never touch the test. Its stdout goes into a file, its stderr through a
// pipe: a file size limit meets only what the program writes to stdout, and the line it says
// about that still comes through.

#include "process.hpp"

#include <sys/resource.h>

#include <chrono>
#include <string>
#include <vector>

namespace gpubench::testing {

struct ResourceLimit {
  int resource = 0; // RLIMIT_AS, RLIMIT_FSIZE, ...
  rlim_t bytes = 0; // soft and hard
};

// Runs argv (argv[0] a path) with stdin /dev/null under `limits`, with SIGXFSZ, SIGPIPE, SIGINT
// and SIGTERM at their defaults and none blocked, whatever the test runner does with them;
// killed after `time_limit`. Throws std::runtime_error where it cannot be started.
[[nodiscard]] Finished run_limited(const std::vector<std::string>& argv,
                                   const std::vector<ResourceLimit>& limits,
                                   std::chrono::seconds time_limit = std::chrono::seconds(60));

} // namespace gpubench::testing
