#include "output_file.hpp"

#include "options.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <random>
#include <thread>

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
    if (is_open_on(fd, file)) {
      return true;
    }
  }
  return false;
}

// Creates a new file beside `target` for its next whole content and returns its descriptor
// (-1 where it cannot be created), `temporary` its name: `.<name>.<16 hex digits>.tmp`, created
// exclusively, so that no file already there is overwritten, and with the name cut to
// `kept_name_bytes`, so that it fits in a directory entry however long the output's name is.
int create_temporary(const std::string& target, std::string& temporary) {
  namespace fs = std::filesystem;
  constexpr std::size_t kept_name_bytes = 100;
  constexpr int attempts = 16;
  const fs::path path(target);
  const std::string name = path.filename().string().substr(0, kept_name_bytes);
  std::random_device random;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    const std::uint64_t suffix = (std::uint64_t{random()} << 32U) | random();
    temporary = (path.parent_path() / fmt::format(".{}.{:016x}.tmp", name, suffix)).string();
    const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) {
      return fd;
    }
  }
  return -1;
}

// Opens `path` to write it whole, once. A FIFO is opened once a reader has it open, waiting for
// one at most fifo_reader_wait (a blocking open would wait forever, deaf to every signal); then
// it is written blocking, as a stream is read.
int open_stream(const std::string& path) {
  constexpr auto fifo_reader_wait = std::chrono::seconds(3);
  const auto deadline = std::chrono::steady_clock::now() + fifo_reader_wait;
  for (;;) {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC, 0666);
    if (fd >= 0) {
      const int flags = fcntl(fd, F_GETFL);
      if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        close(fd);
        return -1;
      }
      return fd;
    }
    if (errno != ENXIO || std::chrono::steady_clock::now() >= deadline) {
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

} // namespace

OutputFile::OutputFile(const std::string& path) : path_(path), target_(path) {
  namespace fs = std::filesystem;
  // A write past the file size limit (ulimit -f) fails with EFBIG, as one to a full disk does,
  // instead of killing the process with SIGXFSZ: the new file is removed, the last complete
  // document stays, and the run says the file could not be written.
  static_cast<void>(std::signal(SIGXFSZ, SIG_IGN));
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
    const int fd = open_stream(path_);
    if (fd < 0) {
      return false;
    }
    const bool written = write_all(fd, text);
    return close(fd) == 0 && written;
  }
  std::string temporary;
  const int fd = create_temporary(target_, temporary);
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
