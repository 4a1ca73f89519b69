#pragma once

#include <filesystem>
#include <string>

namespace gpubench::bench {

// Adds "key": "value" to the context of a Google Benchmark JSON file already written. Google
// Benchmark writes the context before the first benchmark runs, so facts known only after the
// run (the GPU's state at its end) are added this way. Returns false, leaving the file as it
// was, when the file has no JSON context.
bool add_json_context(const std::filesystem::path& file, const std::string& key,
                      const std::string& value);

} // namespace gpubench::bench
