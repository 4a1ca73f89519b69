#include "json_text.hpp"

#include <fmt/format.h>

namespace gpubench {

std::string json_escape(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      escaped += '\\';
    }
    if (static_cast<unsigned char>(c) < 0x20) {
      escaped += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
      continue;
    }
    escaped += c;
  }
  return escaped;
}

} // namespace gpubench
