#include "json_context.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

namespace gpubench::bench {
namespace {

std::string json_escape(const std::string& text) {
  std::string escaped;
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

} // namespace

bool add_json_context(const std::filesystem::path& file, const std::string& key,
                      const std::string& value) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  std::string json = text.str();
  const std::string anchor = "\"context\": {";
  const auto at = json.find(anchor);
  if (at == std::string::npos) {
    return false;
  }
  json.insert(at + anchor.size(),
              fmt::format("\n    \"{}\": \"{}\",", json_escape(key), json_escape(value)));
  std::ofstream(file, std::ios::trunc) << json;
  return true;
}

} // namespace gpubench::bench
