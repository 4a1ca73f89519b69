#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpubench::bench {

// Keys and values for the JSON context, in the order they are added.
using ContextEntries = std::vector<std::pair<std::string, std::string>>;

// `json`, a Google Benchmark JSON document, with "key": "value" first in its context. Google
// Benchmark writes the context before the first benchmark runs, so facts known only later (the
// run's status, the GPU's state at its end) are added this way. nullopt where the document has
// no JSON context.
[[nodiscard]] std::optional<std::string> with_json_context(const std::string& json,
                                                           const std::string& key,
                                                           const std::string& value);
// The same with a JSON value (an object, a list) written as it is, not as a string.
[[nodiscard]] std::optional<std::string> with_json_context_value(const std::string& json,
                                                                 const std::string& key,
                                                                 const std::string& json_value);

} // namespace gpubench::bench
