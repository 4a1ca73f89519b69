#include "process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace gpubench::testing {
namespace {

std::string temp_file() {
  std::string path = (std::filesystem::temp_directory_path() / "gpubench_test_XXXXXX").string();
  const int fd = mkstemp(path.data());
  if (fd < 0) {
    throw std::runtime_error("mkstemp failed");
  }
  close(fd);
  return path;
}

// A pipe's write end whose read end is closed already: every write to it fails (EPIPE, and
// SIGPIPE). Closed on exec: the child has it only where redirect() places it.
int broken_pipe() {
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe2 failed");
  }
  close(ends[0]);
  return ends[1];
}

void redirect(posix_spawn_file_actions_t& actions, int fd, Stream stream, const std::string& path,
              int broken) {
  switch (stream) {
  case Stream::captured:
    posix_spawn_file_actions_addopen(&actions, fd, path.c_str(), O_WRONLY | O_TRUNC, 0);
    break;
  case Stream::closed:
    posix_spawn_file_actions_addclose(&actions, fd);
    break;
  case Stream::full:
    posix_spawn_file_actions_addopen(&actions, fd, "/dev/full", O_WRONLY, 0);
    break;
  case Stream::broken:
    posix_spawn_file_actions_adddup2(&actions, broken, fd);
    break;
  }
}

// The test's environment with `overrides` ("NAME=value") in place of the same names.
std::vector<std::string> environment_with(const std::vector<std::string>& overrides) {
  std::vector<std::string> entries;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const std::string name = text.substr(0, text.find('='));
    const bool replaced = std::any_of(overrides.begin(), overrides.end(), [&](const auto& o) {
      return o.substr(0, o.find('=')) == name;
    });
    if (!replaced) {
      entries.push_back(text);
    }
  }
  entries.insert(entries.end(), overrides.begin(), overrides.end());
  return entries;
}

} // namespace

Process::Process(const std::vector<std::string>& argv, Stream out, Stream err, Group group,
                 const Launch& launch)
    : own_group_(group == Group::own), out_path_(temp_file()), err_path_(temp_file()) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  const int broken = broken_pipe();
  redirect(actions, 1, out, out_path_, broken);
  redirect(actions, 2, err, err_path_, broken);
  // The child starts with SIGINT, SIGTERM and SIGPIPE at their defaults and unblocked, whatever
  // the test runner does with them.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t signals;
  sigemptyset(&signals);
  posix_spawnattr_setsigmask(&attributes, &signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGPIPE);
  posix_spawnattr_setsigdefault(&attributes, &signals);
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (own_group_) {
    posix_spawnattr_setpgroup(&attributes, 0);
    flags |= POSIX_SPAWN_SETPGROUP;
  }
  posix_spawnattr_setflags(&attributes, flags);

  std::vector<char*> args;
  for (const std::string& arg : argv) {
    args.push_back(const_cast<char*>(arg.c_str()));
  }
  args.push_back(nullptr);
  std::vector<std::string> environment = environment_with(launch.environment);
  std::vector<char*> env;
  for (std::string& entry : environment) {
    env.push_back(entry.data());
  }
  env.push_back(nullptr);
  const std::string& program = launch.program.empty() ? argv.front() : launch.program;
  const int error =
      posix_spawn(&pid_, program.c_str(), &actions, &attributes, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(broken);
  if (error != 0) {
    pid_ = -1;
    throw std::runtime_error("posix_spawn " + argv.front() + " failed");
  }
}

Process::~Process() {
  if (pid_ > 0) {
    kill(own_group_ ? -pid_ : pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  std::filesystem::remove(out_path_);
  std::filesystem::remove(err_path_);
}

void Process::send(int signal) const {
  if (pid_ > 0) {
    kill(pid_, signal);
  }
}

void Process::send_to_group(int signal) const {
  if (pid_ > 0 && own_group_) {
    kill(-pid_, signal);
  }
}

Finished Process::wait(std::chrono::seconds limit) {
  Finished finished;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (pid_ > 0) {
    const pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_ || (done < 0 && errno != EINTR)) {
      pid_ = -1;
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill(own_group_ ? -pid_ : pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      pid_ = -1;
      finished.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  record_status(status, finished);
  finished.out = read_file(out_path_);
  finished.err = read_file(err_path_);
  return finished;
}

Finished run_process(const std::vector<std::string>& argv, Stream out, Stream err) {
  return Process(argv, out, err).wait();
}

void record_status(int wait_status, Finished& finished) {
  if (WIFEXITED(wait_status)) {
    finished.exit_code = WEXITSTATUS(wait_status);
  } else if (WIFSIGNALED(wait_status)) {
    finished.signal = WTERMSIG(wait_status);
    finished.exit_code = 128 + finished.signal;
  }
}

std::vector<std::string> command_line(const std::string& program,
                                      const std::vector<std::string>& args) {
  std::vector<std::string> argv{program};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

std::string shown_args(const std::vector<std::string>& args) {
  std::string text;
  for (const std::string& arg : args) {
    text += " " + arg;
  }
  return text;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++count;
  }
  return count;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> record_lines(const std::string& path) {
  std::vector<std::string> lines = lines_of(read_file(path));
  static const std::regex time("time=[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z");
  for (std::string& line : lines) {
    if (std::regex_match(line, time)) {
      line = "time=TIME";
    }
  }
  return lines;
}

ScratchDir::ScratchDir() {
  std::string path = (std::filesystem::temp_directory_path() / "gpubench_scratch_XXXXXX").string();
  if (mkdtemp(path.data()) == nullptr) {
    throw std::runtime_error("mkdtemp failed");
  }
  dir_ = path;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

} // namespace gpubench::testing
