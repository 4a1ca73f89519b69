"""`gpubench-tools SUBCOMMAND ARGS` run as a process forked from the test's own, where the toolkit,
numpy, scipy and matplotlib are already loaded: the same command line, exit status, stdout and
stderr as a fresh `python3 gpubench-tools` gives, without its 0.3-1.5 s of start-up (most of the
toolkit's tests' time on two cores).

The child is a process of its own: its standard streams are pipes of its own, its signals are at
the dispositions a fresh Python starts with, the test's atexit handlers and warning filters are
not its, and it ends as Python ends a script (the excepthook for an uncaught exception, the
streams flushed, exit status 120 where the last flush fails). What it cannot show is how the
command starts: tests of that (a package that cannot load, an address-space limit, a signal
before the imports) start a fresh interpreter (conftest.command).
"""

import atexit
import io
import locale
import os
import selectors
import signal
import subprocess
import sys
import time
import traceback
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

SCRIPTS = Path(__file__).resolve().parent.parent
TOOLS = SCRIPTS / "gpubench-tools"
# The warning filters this process started with, before pytest's own: the child's.
_STARTING_FILTERS = list(warnings.filters)
_loaded: list[bool] = []


def _load_toolkit() -> None:
    """Everything a subcommand imports, once per test process."""
    if _loaded:
        return
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    import importlib

    from gpubench_tools.cli import main
    for module, _ in main.SUBCOMMANDS.values():
        importlib.import_module(f"gpubench_tools.cli.{module}")
    import scipy.stats  # noqa: F401  (compare loads it where runs hold repetitions)

    import gpubench_tools.renderers.figures.setup  # noqa: F401
    _loaded.append(True)


def _fresh_signals() -> None:
    """The dispositions a Python script starts with: SIGINT raises KeyboardInterrupt, SIGPIPE
    and SIGXFSZ are ignored (write errors instead), every other signal is at its default."""
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    for number in signal.valid_signals():
        if number in (signal.SIGKILL, signal.SIGSTOP):
            continue
        try:
            signal.signal(number, signal.SIG_DFL)
        except (OSError, ValueError):
            pass
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def _fresh_streams(stdin_fd: int, stdout_fd: int, stderr_fd: int) -> None:
    for source, target in ((stdin_fd, 0), (stdout_fd, 1), (stderr_fd, 2)):
        os.dup2(source, target)
    # PYTHONIOENCODING=encoding[:errors], as Python reads it for stdin and stdout.
    named, _, errors = os.environ.get("PYTHONIOENCODING", "").partition(":")
    encoding = named or locale.getpreferredencoding(False)
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.open(0, "rb", closefd=False),
                                                 encoding=encoding, errors=errors or "strict")
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(io.open(1, "wb", closefd=False),
                                                   encoding=encoding, errors=errors or "strict")
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(io.open(2, "wb", closefd=False),
                                                   encoding=encoding, errors="backslashreplace",
                                                   line_buffering=True)


def _exit_code(code: object) -> int:
    """What Python's exit makes of SystemExit's code."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


# Read as the interpreter starts (the standard streams' encoding, the path, matplotlib's
# folders and backend, OpenBLAS's threads): an environment that sets one of these otherwise than
# the test's own gets a fresh interpreter.
_STARTUP_PREFIXES = ("PYTHON", "LANG", "LC_", "MPL", "HOME", "XDG_", "OPENBLAS", "OMP_")


def _child(args: Sequence[str], stdout_fd: int, stderr_fd: int, stdin_fd: int,
           setup: Callable[[], None]) -> None:
    try:
        setup()
        _fresh_signals()
        _fresh_streams(stdin_fd, stdout_fd, stderr_fd)
        atexit._clear()
        warnings.filters[:] = _STARTING_FILTERS
        sys.excepthook = sys.__excepthook__
        sys.unraisablehook = sys.__unraisablehook__
        sys.argv = [str(TOOLS), *args]
        from gpubench_tools.cli.main import main
        try:
            code = _exit_code(main(list(args)))
        except SystemExit as end:
            code = _exit_code(end.code)
        except BaseException:
            sys.excepthook(*sys.exc_info())
            code = 1
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:  # Python's own end: "Exception ignored", exit status 120
                code = 120
        os._exit(code)
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(70)  # the child never returns into the test's process


def _text(data: bytes) -> str:
    """Output as subprocess.run(..., text=True) decodes it: the locale's encoding, universal
    newlines."""
    return data.decode(locale.getpreferredencoding(False)).replace("\r\n", "\n").replace(
        "\r", "\n")


def _starts_otherwise(env: Mapping[str, str] | None) -> bool:
    if env is None:
        return False
    names = {*env, *os.environ} - {"PYTHONIOENCODING"}  # the child's streams read it
    return any(name.startswith(_STARTUP_PREFIXES) and env.get(name) != os.environ.get(name)
               for name in names)


def run_tool(args: Sequence[object], *, cwd: Path | str | None = None,
             env: Mapping[str, str] | None = None, input: bytes | None = None,
             text: bool = True, timeout: float = 60,
             before: Callable[[], None] | None = None) -> subprocess.CompletedProcess[Any]:
    """`gpubench-tools *args` as subprocess.run(..., capture_output=True) returns it, with the
    same cwd, env, input, text and timeout; `before` runs in the child first, as
    subprocess.run's preexec_fn does. An env that changes what the interpreter reads as it
    starts runs a fresh one."""
    argv = [os.fsdecode(a) if isinstance(a, bytes) else str(a) for a in args]
    if _starts_otherwise(env):
        return subprocess.run([sys.executable, str(TOOLS), *map(os.fsencode, argv)],
                              cwd=cwd, env=env, input=input, capture_output=True, text=text,
                              timeout=timeout, preexec_fn=before)
    _load_toolkit()

    def setup() -> None:
        if cwd is not None:
            os.chdir(cwd)
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        if before is not None:
            before()

    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    in_read, in_write = os.pipe() if input is not None else (os.open(os.devnull, os.O_RDONLY), -1)
    pid = os.fork()
    if pid == 0:
        for fd in (out_read, err_read, in_write):
            if fd >= 0:
                os.close(fd)
        _child(argv, out_write, err_write, in_read, setup)
    for fd in (out_write, err_write, in_read):
        os.close(fd)
    chunks: dict[int, list[bytes]] = {out_read: [], err_read: []}
    pending = memoryview(input or b"")
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        for fd in chunks:
            selector.register(fd, selectors.EVENT_READ)
        if in_write >= 0:
            if pending:
                os.set_blocking(in_write, False)
                selector.register(in_write, selectors.EVENT_WRITE)
            else:
                os.close(in_write)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                for key in list(selector.get_map().values()):
                    os.close(key.fd)
                raise subprocess.TimeoutExpired([str(TOOLS), *argv], timeout)
            for key, _ in selector.select(left):
                if key.fd == in_write:
                    try:
                        pending = pending[os.write(in_write, pending[:1 << 16]):]
                    except BrokenPipeError:
                        pending = pending[:0]
                    if not pending:
                        selector.unregister(in_write)
                        os.close(in_write)
                    continue
                data = os.read(key.fd, 1 << 16)
                if data:
                    chunks[key.fd].append(data)
                else:
                    selector.unregister(key.fd)
                    os.close(key.fd)
    _, status = os.waitpid(pid, 0)
    stdout, stderr = b"".join(chunks[out_read]), b"".join(chunks[err_read])
    return subprocess.CompletedProcess(
        [sys.executable, str(TOOLS), *argv], os.waitstatus_to_exitcode(status),
        _text(stdout) if text else stdout, _text(stderr) if text else stderr)
