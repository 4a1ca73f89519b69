#pragma once

#include <filesystem>
#include <string>

namespace gpubench {

// The first line of a small text file such as a sysfs attribute, without its newline; empty
// where the file cannot be read.
[[nodiscard]] std::string read_first_line(const std::filesystem::path& file);

} // namespace gpubench
