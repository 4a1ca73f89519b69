#include "output_file.hpp"

#include "options.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

namespace gpubench::bench {
namespace {

bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t written = ::write(fd, text.data(), text.size());
    if (written < 0 && errno == EINTR) {
      continue;
    }
    if (written <= 0) {
      return false;
    }
    text.remove_prefix(static_cast<std::size_t>(written));
  }
  return true;
}

// Whether `file` is what this process's stdin, stdout or stderr is open on
// (--benchmark_out=/dev/stdout with stdout sent to a file): renaming over it would cut that
// stream off from the name.
bool is_standard_stream(const struct stat& file) {
  for (const int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    struct stat stream {};
    if (fstat(fd, &stream) == 0 && stream.st_dev == file.st_dev && stream.st_ino == file.st_ino) {
      return true;
    }
  }
  return false;
}

} // namespace

OutputFile::OutputFile(const std::string& path) : path_(path), target_(path) {
  namespace fs = std::filesystem;
  struct stat status {};
  if (stat(path.c_str(), &status) == 0) {
    if (!S_ISREG(status.st_mode) || is_standard_stream(status)) {
      return;
    }
    std::error_code error;
    const fs::path resolved = fs::canonical(path, error);
    if (error) {
      return;
    }
    target_ = resolved.string();
    mode_ = status.st_mode & 07777;
  } else {
    std::error_code error;
    target_ = followed_links(path, error); // a dangling link is written through
  }
  fs::path directory = fs::path(target_).parent_path();
  if (directory.empty()) {
    directory = ".";
  }
  replaceable_ = access(directory.c_str(), W_OK) == 0;
}

bool OutputFile::write(std::string_view text) {
  if (!replaceable_) {
    const int fd = open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
      return false;
    }
    const bool written = write_all(fd, text);
    return close(fd) == 0 && written;
  }
  const std::string temporary = target_ + ".tmp";
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    return false;
  }
  // fsync before rename: without it a crash of the machine (not of gpubench) could leave the
  // new name on an empty file.
  bool written = (!mode_ || fchmod(fd, *mode_) == 0) && write_all(fd, text) && fsync(fd) == 0;
  written = close(fd) == 0 && written;
  if (!written || rename(temporary.c_str(), target_.c_str()) != 0) {
    unlink(temporary.c_str());
    return false;
  }
  return true;
}

} // namespace gpubench::bench
