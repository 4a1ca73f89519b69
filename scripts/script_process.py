"""What the machine lacks, not the input, is one line `<script>: <problem>` on stderr and exit
status 2, not a traceback: each script imports this module first, before numpy, scipy or
matplotlib load. Where nothing catches it, memory (MemoryError or ENOMEM, however deep in numpy
or matplotlib), file descriptors (EMFILE), or a package that cannot be loaded (not installed
for this python3, or its shared object not mapped under an address-space limit) ends the script
so; the line names the limit where one is set. Exit status 1 stays what it is: a verdict of
compare.py and fleet.py.
"""

import contextlib
import errno
import os
import resource
import sys
from pathlib import Path
from types import TracebackType

from safe_text import one_line

_ENVIRONMENT_FAILURE = 2
_MESSAGE_LIMIT = 400


def address_space_limit() -> str:
    """The soft address-space limit as a clause of a message, or "" where none is set."""
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit == resource.RLIM_INFINITY:
        return ""
    return f" (the address space is limited to {limit // 1024} KiB: ulimit -v)"


def environment_problem(error: BaseException) -> str | None:
    """What the machine lacks, as the line names it; None for an error of another kind."""
    if isinstance(error, MemoryError) or (isinstance(error, OSError)
                                          and error.errno == errno.ENOMEM):
        return f"out of memory{address_space_limit()}"
    if isinstance(error, OSError) and error.errno == errno.EMFILE:
        files = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        return f"too many open files (at most {files}: ulimit -n)"
    if isinstance(error, ModuleNotFoundError):
        return (f"{error.name or 'a package'} is not installed for {sys.executable} "
                f"(python3 -m pip install -r scripts/requirements.txt)")
    if isinstance(error, ImportError):
        return (f"cannot load {error.name or 'a package'}{address_space_limit()}: "
                f"{one_line(error, _MESSAGE_LIMIT)}")
    return None


def _report_environment_problem(kind: type[BaseException], error: BaseException,
                                traceback: TracebackType | None) -> None:
    """sys.excepthook: one line and exit status 2 for what the machine lacks; a traceback, as
    Python prints it, for anything else (a bug)."""
    problem = environment_problem(error)
    if problem is None:
        sys.__excepthook__(kind, error, traceback)
        return
    line = f"{Path(sys.argv[0]).name}: {problem}\n"
    # os.write: no buffer to allocate where memory ran out, and no flush left at exit to fail.
    with contextlib.suppress(OSError):
        os.write(2, line.encode("utf-8", "backslashreplace"))
    os._exit(_ENVIRONMENT_FAILURE)


sys.excepthook = _report_environment_problem
