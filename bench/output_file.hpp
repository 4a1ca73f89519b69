#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace gpubench::bench {

// The --benchmark_out file, written whole each time so that a reader never sees part of a
// document. A regular file (or a new name) in a writable directory is replaced atomically: a
// new file beside it (`.<file>.<random>.tmp`, no file already there) is written, fsynced and
// renamed over it, so a process killed at any moment leaves the last complete version. Anything
// that cannot be renamed over (/dev/stdout, a FIFO, a terminal, a file this process's standard
// streams are open on) or a file in a directory gpubench cannot write is written once, at the end
// of the run: a stream cannot take back what it has sent, and the document's context, at its
// top, holds facts known only at the end; a FIFO no reader opens within 3 s then fails. A write
// past the file size limit fails like any other (SIGXFSZ is ignored from the first OutputFile
// on).
class OutputFile {
public:
  explicit OutputFile(const std::string& path);

  // Whether write() may be called more than once (the file is replaced each time).
  [[nodiscard]] bool replaceable() const noexcept { return replaceable_; }
  // Makes `text` the file's content; false where that failed (a replaced file keeps its last
  // complete content).
  bool write(std::string_view text);

private:
  std::string path_;       // as given: what a stream is opened by
  std::string target_;     // the regular file replaced, symbolic links resolved
  bool replaceable_ = false;
  std::optional<mode_t> mode_; // an existing file keeps its permissions
};

} // namespace gpubench::bench
