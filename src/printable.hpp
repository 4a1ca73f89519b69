#pragma once

#include <string>
#include <string_view>

namespace gpubench {

// `text` as it can be shown on one line of a terminal: control characters (C0, DEL, C1, the
// Unicode line and paragraph separators) and bytes that are not UTF-8 are written \xNN, every
// other byte as it is. Idempotent: what it returns has nothing left to escape.
[[nodiscard]] std::string printable(std::string_view text);

} // namespace gpubench
