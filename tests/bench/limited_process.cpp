#include "limited_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <filesystem>
#include <stdexcept>
#include <thread>

namespace gpubench::testing {
namespace {

// Everything from fork to exec: only async-signal-safe calls, as the test may run threads whose
// locks the child inherits held. Returns only by exec; a step that fails ends the child with
// 126 (127 where exec itself fails, as a shell reports a command it cannot run).
[[noreturn]] void become(char* const* argv, const char* out_path, int err_fd,
                         const std::vector<ResourceLimit>& limits) {
  const int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  const int out = open(out_path, O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (in < 0 || out < 0 || dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
      dup2(err_fd, STDERR_FILENO) < 0) {
    _exit(126);
  }
  for (const ResourceLimit& limit : limits) {
    const rlimit value{.rlim_cur = limit.bytes, .rlim_max = limit.bytes};
    if (setrlimit(limit.resource, &value) != 0) {
      _exit(126);
    }
  }
  struct sigaction defaults {};
  defaults.sa_handler = SIG_DFL;
  for (const int signal : {SIGXFSZ, SIGPIPE, SIGINT, SIGTERM}) {
    sigaction(signal, &defaults, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execv(argv[0], argv);
  _exit(127);
}

std::string temp_file() {
  std::string path = (std::filesystem::temp_directory_path() / "gpubench_test_XXXXXX").string();
  const int fd = mkstemp(path.data());
  if (fd < 0) {
    throw std::runtime_error("mkstemp failed");
  }
  close(fd);
  return path;
}

} // namespace

Finished run_limited(const std::vector<std::string>& argv, const std::vector<ResourceLimit>& limits,
                     std::chrono::seconds time_limit) {
  const std::string out_path = temp_file();
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& arg : argv) {
    args.push_back(const_cast<char*>(arg.c_str()));
  }
  args.push_back(nullptr);
  std::array<int, 2> err_pipe{};
  if (pipe2(err_pipe.data(), O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe2 failed");
  }
  const pid_t pid = fork();
  if (pid < 0) {
    throw std::runtime_error("fork failed");
  }
  if (pid == 0) {
    become(args.data(), out_path.c_str(), err_pipe[1], limits);
  }
  close(err_pipe[1]);

  Finished finished;
  const auto deadline = std::chrono::steady_clock::now() + time_limit;
  std::array<char, 4096> chunk{};
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      kill(pid, SIGKILL);
      finished.timed_out = true;
      break;
    }
    pollfd readable{.fd = err_pipe[0], .events = POLLIN, .revents = 0};
    const int ready = poll(&readable, 1, static_cast<int>(left.count()));
    if (ready <= 0) {
      if (ready == 0 || errno == EINTR) {
        continue;
      }
      break;
    }
    const ssize_t n = read(err_pipe[0], chunk.data(), chunk.size());
    if (n == 0 || (n < 0 && errno != EINTR)) {
      break; // no writer left: the child has ended or closed its stderr
    }
    if (n > 0) {
      finished.err.append(chunk.data(), static_cast<std::size_t>(n));
    }
  }
  close(err_pipe[0]);
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) {
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      finished.timed_out = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  record_status(status, finished);
  finished.out = read_file(out_path);
  std::filesystem::remove(out_path);
  return finished;
}

} // namespace gpubench::testing
