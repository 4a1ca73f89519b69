#pragma once

#include <string>

namespace gpubench::bench {

// One line on stderr, "gpubench: <message>", whatever the message holds (a value with a newline
// or an escape sequence in it is shown escaped), of at most about 2000 bytes (a longer one by its
// start and end). stdio, not fmt::print: a closed or full stderr must not turn an error into an
// abort.
void say(const std::string& message);

} // namespace gpubench::bench
