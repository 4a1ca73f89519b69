"""What the machine lacks, not the input, is one line `gpubench-tools <subcommand>: <problem>` on
stderr and exit status 2, not a traceback: the command imports this module first, before numpy,
scipy or matplotlib load. Where nothing catches it, memory (MemoryError or ENOMEM, however deep in
numpy or matplotlib), file descriptors (EMFILE), or a package that cannot be loaded (not installed
for this python3, or its shared object not mapped under an address-space limit) ends the command so;
the line names the limit where one is set. Exit status 1 stays what it is: a verdict of
gpubench-tools compare and gpubench-tools fleet.

SIGINT, SIGTERM and SIGHUP (Ctrl-C, `timeout`, a CI cancel, a closed terminal) stop a command as one
line `gpubench-tools <subcommand>: stopped by SIGTERM before it finished`, not a traceback (SIGINT's
KeyboardInterrupt) or a silent death that leaves an output's temporary file behind (SIGTERM's and
SIGHUP's default): the signal is raised as an exception where the command is, so the output being
written is removed unfinished (writing/outputs.py's write_output) and an earlier one stays as it was
(where Python or a library discards the exception, the signal comes again a second later, and a
library's warning in its place is not shown); then the command ends by that signal, as it would have
(exit status 128+N in a shell). A signal the command started with ignored (`nohup`, a background job
of a shell script) stays ignored.

The OpenBLAS that numpy and scipy load cannot be stopped or asked when it runs out of address
space: where it cannot allocate its buffer it spins forever (as scipy loads, where no signal
reaches the command) or exits with lines of its own. So an address space of less than
ADDRESS_SPACE_FLOOR (ulimit -v), in which it could, is one line and exit status 2 before
anything loads; from the floor up, OpenBLAS's buffers fit as the packages load, and memory that
runs out later (the largest files the toolkit reads need more than the floor) is the one line
`out of memory`. And OpenBLAS runs on one thread, whatever OPENBLAS_NUM_THREADS the environment
sets: each further thread allocates a buffer of its own (32 MiB) as the library loads, and the
toolkit's arithmetic is too small to gain from them.
"""

import atexit
import contextlib
import errno
import io
import os
import resource
import signal
import sys
import threading
import time
import warnings
from pathlib import Path
from types import FrameType, TracebackType

from gpubench_tools.reading.safe_text import one_line
from gpubench_tools.writing.outputs import StdoutError

_ENVIRONMENT_FAILURE = 2
ADDRESS_SPACE_FLOOR = 1 << 30
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


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Stopped(BaseException):
    """A stop signal, raised where the command is; BaseException, as KeyboardInterrupt is, so
    that no `except Exception` takes it for an error of the input."""

    def __init__(self, number: int) -> None:
        super().__init__(signal.Signals(number).name)


# The stop signal being acted on, once one has come, and when its last Stopped was raised.
_stopping: list[int] = []
_raised_at: list[float] = []
# How long a Stopped raised has to end the command before its signal is sent again.
_DELIVERY_AGAIN_S = 1.0


def _raise_stopped(number: int, frame: FrameType | None) -> None:
    """The stop signals' handler. A signal that comes while a Stopped raised is still on its
    way (a finally block or `except BaseException` cleanup runs, less than _DELIVERY_AGAIN_S
    ago) or while the excepthook ends the command raises nothing: a second Stopped there would
    cut the cleanup short, or end the command in a traceback and exit status 1."""
    if not _stopping:
        _stopping.append(number)
        # A library that takes the stop for an error of its own may warn in its place (matplotlib:
        # "Unable to import Axes3D" where the signal came as a pybind11 module loaded); the
        # command's one line is all it says from here on.
        warnings.simplefilter("ignore")
        threading.Thread(target=_deliver_again, daemon=True).start()
    elif time.monotonic() - _raised_at[-1] < _DELIVERY_AGAIN_S or _ending(frame):
        return
    _raised_at.append(time.monotonic())
    raise Stopped(_stopping[0])


def _ending(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code is _report_outside_problem.__code__:
            return True
        frame = frame.f_back
    return False


def _deliver_again() -> None:
    """A Stopped raised where Python discards exceptions (an import lock's weakref callback, a
    C function that clears errors) would let the command run on: the signal is sent again each
    _DELIVERY_AGAIN_S until the process has ended, far longer than a finally block takes."""
    while True:
        time.sleep(_DELIVERY_AGAIN_S)
        os.kill(os.getpid(), _stopping[0])


def _discard_stopped(unraisable: "sys.UnraisableHookArgs") -> None:
    """sys.unraisablehook: a Stopped discarded so is no "Exception ignored" traceback (it is
    raised again); anything else is reported as Python reports it."""
    if not isinstance(unraisable.exc_value, Stopped):
        sys.__unraisablehook__(unraisable)


# The command's name as its lines begin (`gpubench-tools compare`), set by install().
_prog: list[str] = []


def _say(line: str) -> None:
    # os.write: no buffer to allocate where memory ran out, and no flush left at exit to fail.
    name = _prog[0] if _prog else Path(sys.argv[0]).name
    with contextlib.suppress(OSError):
        os.write(2, f"{name}: {line}\n".encode("utf-8", "backslashreplace"))


def _end_by_signal(number: int) -> None:
    """Ends the process by signal `number`, as its default action would have, so the shell
    and the scheduler see which signal stopped it."""
    signal.signal(number, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [number])
    os.kill(os.getpid(), number)
    os._exit(128 + number)  # reached only where the signal could not end the process


def _report_outside_problem(kind: type[BaseException], error: BaseException,
                            traceback: TracebackType | None) -> None:
    """sys.excepthook: one line and the signal's own end once a stop signal has come, whatever
    error ends the command (a Stopped, or another raised from it: pybind11 turns one in a module's
    initialization into ImportError "initialization failed"); one line and exit status 2 for
    what the machine lacks and for a failed write to stdout; a traceback, as Python prints it,
    for anything else (a bug)."""
    if _stopping or isinstance(error, KeyboardInterrupt):
        for number in _STOP_SIGNALS:  # a second signal does not cut the line short
            signal.signal(number, signal.SIG_IGN)
        number = _stopping[0] if _stopping else signal.SIGINT
        _say(f"stopped by {signal.Signals(number).name} before it finished")
        _end_by_signal(number)
    if isinstance(error, StdoutError):  # a write no subcommand reported (--help to /dev/full)
        _say(f"stdout: {error.strerror}")
        os._exit(_ENVIRONMENT_FAILURE)
    problem = environment_problem(error)
    if problem is None:
        sys.__excepthook__(kind, error, traceback)
        return
    _say(problem)
    os._exit(_ENVIRONMENT_FAILURE)


def _ignore_stop_signals() -> None:
    """At exit, once the command has done its work: a stop signal then would end a finished
    command by the signal's default (Python restores it as it finalizes), without a line."""
    for number in _STOP_SIGNALS:
        signal.signal(number, signal.SIG_IGN)


class _ClosedStdout(io.TextIOBase):
    """What sys.stdout is when the command started with stdout closed (`gpubench-tools ... >&-`):
    every write fails with EBADF, as writing to a closed descriptor does."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "closed")

    def fileno(self) -> int:
        return 1


class _StderrAsFarAsItTakes(io.RawIOBase):
    """Standard error's descriptor, written as far as it takes the bytes: what a failed write
    leaves (a full disk, a closed descriptor, a reader gone) is dropped. stderr is where the
    command says what went wrong, so its own failure can be said nowhere; and it must not change
    the exit status, as Python's would (1 for the traceback of a failed print, 120 for a last
    flush that fails), 1 being compare's and fleet's verdict."""

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return 2

    def write(self, data: bytes) -> int:  # type: ignore[override]
        left = memoryview(data).cast("B")
        with contextlib.suppress(OSError):
            while left:
                left = left[os.write(2, left):]
        return len(data)


def _on_devnull(fd: int) -> None:
    """/dev/null on the closed descriptor `fd`, so that no file the command opens later takes
    it, and what is written there goes nowhere rather than into that file."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    if devnull != fd:
        os.dup2(devnull, fd)
        os.close(devnull)


def _guard_standard_streams() -> None:
    """Text any encoding cannot hold (a non-ASCII name under PYTHONIOENCODING=ascii, a lone
    surrogate) is written as backslash escapes. A closed stdout gets /dev/null on descriptor 1
    and a stream that says it is closed. stderr is written as far as it takes the bytes, and
    then never fails (a closed one gets /dev/null on descriptor 2)."""
    if sys.stdout is None:
        _on_devnull(1)
        sys.stdout = _ClosedStdout()
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="backslashreplace")
    encoding = getattr(sys.stderr, "encoding", None) or "utf-8"
    if sys.stderr is None:
        _on_devnull(2)
    else:
        with contextlib.suppress(OSError, ValueError):  # what it holds is written before
            sys.stderr.flush()
    sys.stderr = io.TextIOWrapper(_StderrAsFarAsItTakes(), encoding=encoding,  # type: ignore
                                  errors="backslashreplace", line_buffering=True,
                                  write_through=True)


def install(prog: str) -> None:
    """Makes this process a command's: called once by the command line before it loads numpy,
    scipy or matplotlib. Importing this module changes nothing; install() sets the stop
    signals' handling, the hooks that turn what the machine lacks into one line, OpenBLAS's one
    thread and the standard streams' guards, and refuses an address space below the floor."""
    _prog[:] = [prog]
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    _guard_standard_streams()
    sys.excepthook = _report_outside_problem
    atexit.register(_ignore_stop_signals)
    sys.unraisablehook = _discard_stopped
    for number in _STOP_SIGNALS:
        if signal.getsignal(number) != signal.SIG_IGN:
            signal.signal(number, _raise_stopped)
    address_space = resource.getrlimit(resource.RLIMIT_AS)[0]
    if address_space != resource.RLIM_INFINITY and address_space < ADDRESS_SPACE_FLOOR:
        _say(f"the toolkit needs an address space of {ADDRESS_SPACE_FLOOR >> 20} MiB or more"
             f"{address_space_limit()}")
        os._exit(_ENVIRONMENT_FAILURE)
