#include "sysfs_text.hpp"

#include <fstream>

namespace gpubench {

std::string read_first_line(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

} // namespace gpubench
