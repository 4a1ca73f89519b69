#include "printable.hpp"

#include <fmt/format.h>

namespace gpubench {
namespace {

// The length of the well-formed UTF-8 sequence at the start of `text` (Unicode's table 3-7: no
// overlong forms, no surrogates, nothing past U+10FFFF), its code point in `code`; 0 if none.
std::size_t utf8_sequence(std::string_view text, char32_t& code) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    code = lead & 0x1Fu;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    code = lead & 0x0Fu;
    low = lead == 0xE0 ? 0xA0 : 0x80;
    high = lead == 0xED ? 0x9F : 0xBF;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    code = lead & 0x07u;
    low = lead == 0xF0 ? 0x90 : 0x80;
    high = lead == 0xF4 ? 0x8F : 0xBF;
  } else {
    return 0;
  }
  if (text.size() < length) {
    return 0;
  }
  for (std::size_t i = 1; i < length; ++i) {
    const unsigned char b = byte(i);
    if (b < (i == 1 ? low : 0x80) || b > (i == 1 ? high : 0xBF)) {
      return 0;
    }
    code = (code << 6) | (b & 0x3Fu);
  }
  return length;
}

bool is_control(char32_t code) {
  return code < 0x20 || (code >= 0x7F && code <= 0x9F) || code == 0x2028 || code == 0x2029;
}

} // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto escape = [&](std::string_view bytes) {
    for (const char b : bytes) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(b));
    }
  };
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      if (is_control(b)) {
        escape(text.substr(i, 1));
      } else {
        out += static_cast<char>(b);
      }
      ++i;
      continue;
    }
    char32_t code = 0;
    const std::size_t length = utf8_sequence(text.substr(i), code);
    if (length == 0) {
      escape(text.substr(i, 1));
      ++i;
    } else {
      if (is_control(code)) {
        escape(text.substr(i, length));
      } else {
        out.append(text.substr(i, length));
      }
      i += length;
    }
  }
  return out;
}

} // namespace gpubench
