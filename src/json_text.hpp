#pragma once

#include <string>
#include <string_view>

namespace gpubench {

// `text` as the inside of a JSON string: quotes and backslashes escaped, control characters as
// \u00XX.
[[nodiscard]] std::string json_escape(std::string_view text);

} // namespace gpubench
