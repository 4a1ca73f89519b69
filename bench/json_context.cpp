#include "json_context.hpp"

#include "json_text.hpp"

#include <fmt/format.h>

namespace gpubench::bench {

std::optional<std::string> with_json_context_value(const std::string& json,
                                                   const std::string& key,
                                                   const std::string& json_value) {
  const std::string anchor = "\"context\": {";
  const auto at = json.find(anchor);
  if (at == std::string::npos) {
    return std::nullopt;
  }
  std::string added = json;
  added.insert(at + anchor.size(),
               fmt::format("\n    \"{}\": {},", json_escape(key), json_value));
  return added;
}

std::optional<std::string> with_json_context(const std::string& json, const std::string& key,
                                             const std::string& value) {
  return with_json_context_value(json, key, fmt::format("\"{}\"", json_escape(value)));
}

} // namespace gpubench::bench
