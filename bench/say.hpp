#pragma once

#include <string>

namespace gpubench::bench {

// One line on stderr, "gpubench: <message>", whatever the message holds (a value with a newline
// or an escape sequence in it is shown escaped). stdio, not fmt::print: a closed or full stderr
// must not turn an error into an abort.
void say(const std::string& message);

} // namespace gpubench::bench
