#include "standard_streams.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <initializer_list>

namespace gpubench::bench {

void reserve_standard_streams() {
  static_cast<void>(std::signal(SIGPIPE, SIG_IGN));
  static_cast<void>(std::signal(SIGXFSZ, SIG_IGN));
  for (const int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
      // The lowest free number: `fd` itself, as those below it are open.
      static_cast<void>(open(fd == STDOUT_FILENO ? "/dev/full" : "/dev/null",
                             fd == STDIN_FILENO ? O_RDONLY : O_WRONLY));
    }
  }
}

} // namespace gpubench::bench
