#pragma once

// A program run as a user runs it, without a shell in between: its exit status, what it wrote
// on stdout and on stderr, and how it fares with either stream closed or full.

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace gpubench::testing {

// What a child's stdout or stderr is: a file the test reads, closed (`2>&-`), /dev/full, or a
// pipe whose reader is gone (`| head` once head has ended).
enum class Stream { captured, closed, full, broken };

struct Finished {
  int exit_code = -1;     // as a shell reports it: 128 + the signal where a signal ended it
  int signal = 0;         // the signal that ended it, or 0
  bool timed_out = false; // killed for running past the limit
  std::string out;
  std::string err;
};

// Whether a child shares the test's process group or leads one of its own, as a shell's job or
// a command under `timeout` does (a signal to that group then reaches it and what it starts).
enum class Group { shared, own };

// How a child starts beyond its arguments: the program (argv[0] where empty) and the
// "NAME=value" entries that replace or add to the test's environment.
struct Launch {
  std::string program;
  std::vector<std::string> environment;
};

class Process {
public:
  // Starts argv[0] (a path), or `launch.program`, with argv; stdin is /dev/null.
  explicit Process(const std::vector<std::string>& argv, Stream out = Stream::captured,
                   Stream err = Stream::captured, Group group = Group::shared,
                   const Launch& launch = {});
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  Process(Process&&) = delete;
  Process& operator=(Process&&) = delete;
  ~Process(); // kills the child if it still runs

  void send(int signal) const;
  // Sends `signal` to the child's own process group (Group::own only).
  void send_to_group(int signal) const;
  // Waits for the child to end, killing it after `limit`.
  Finished wait(std::chrono::seconds limit = std::chrono::seconds(120));

private:
  pid_t pid_ = -1;
  bool own_group_ = false;
  std::string out_path_;
  std::string err_path_;
};

[[nodiscard]] Finished run_process(const std::vector<std::string>& argv,
                                   Stream out = Stream::captured, Stream err = Stream::captured);

// The exit code and signal of a child's status as waitpid gives it, into `finished`.
void record_status(int wait_status, Finished& finished);

// `program` followed by `args`: an argv for run_process and its kin.
[[nodiscard]] std::vector<std::string> command_line(const std::string& program,
                                                    const std::vector<std::string>& args);

// `args` as a message names them: each after a space.
[[nodiscard]] std::string shown_args(const std::vector<std::string>& args);

// How often `what` occurs in `text`, overlapping occurrences each counted.
[[nodiscard]] std::size_t count_of(const std::string& text, const std::string& what);

// The lines of `text`, without their '\n'; a last line without one counts too.
[[nodiscard]] std::vector<std::string> lines_of(const std::string& text);

[[nodiscard]] std::string read_file(const std::string& path);

// The lines of a status record (gpubench --status-out) with its time replaced by TIME, once the
// time is checked to be a UTC time as fleet reads it.
[[nodiscard]] std::vector<std::string> record_lines(const std::string& path);

// A file name in a fresh directory of its own, removed with everything in it at destruction.
class ScratchDir {
public:
  ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir();
  [[nodiscard]] std::string path(const std::string& name) const { return dir_ + "/" + name; }
  [[nodiscard]] const std::string& dir() const noexcept { return dir_; }

private:
  std::string dir_;
};

} // namespace gpubench::testing
