"""Outputs written whole or not at all, never over an input or the file the command's standard
output or standard error goes to."""



import contextlib
import errno
import os
import secrets
import signal
import stat
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from gpubench_tools.reading.errors import OutputIsInputError, OutputIsStandardStreamError


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file, however each is spelled (another path to it, a link).
    A path that does not exist (yet) names no file."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):  # missing, unreadable, or a NUL in the path
        return False


def repeated_file(paths: Iterable[Path]) -> tuple[Path, Path] | None:
    """The first path that names the same file as an earlier one (same_file), with that earlier
    one; None where each names a file of its own."""
    seen: list[Path] = []
    for path in paths:
        if earlier := next((p for p in seen if same_file(p, path)), None):
            return path, earlier
        seen.append(path)
    return None


def standard_stream(path: Path) -> str | None:
    """"standard output" or "standard error" where `path` is the file the command's stdout or
    stderr goes to, by any path (/dev/stdout, /dev/fd/1, /proc/self/fd/1, the file's name, a link
    to it), a pipe or a terminal as well as a file; else None. /dev/null is none: it keeps nothing
    that could be overwritten."""
    try:
        target = os.stat(path)
        devnull = os.stat(os.devnull)
    except (OSError, ValueError):  # no such file (yet), or a NUL in the path
        return None
    if stat.S_ISCHR(target.st_mode) and target.st_rdev == devnull.st_rdev:
        return None
    for descriptor, stream in ((1, "standard output"), (2, "standard error")):
        try:
            open_on = os.fstat(descriptor)
        except OSError:
            continue
        if (open_on.st_dev, open_on.st_ino) == (target.st_dev, target.st_ino):
            return stream
    return None


def goes_to(stream: str) -> str:
    """Why an output is refused where `stream` goes to it, as gpubench says it of its JSON."""
    return f"is the file {stream} goes to; name another for the output"


def refuse_output_over_input(output: Path, inputs: Iterable[Path]) -> None:
    """Raises OutputIsInputError where `output` is the same file as one of `inputs`, so that
    nothing is written over an input, and OutputIsStandardStreamError where it is the file the
    command's stdout or stderr goes to, where its lines would overwrite the output or land in
    the middle of it."""
    if stream := standard_stream(output):
        raise OutputIsStandardStreamError(f"{output}: {goes_to(stream)}")
    for path in inputs:
        if same_file(output, path):
            raise OutputIsInputError(f"{output}: is also an input ({path}); writing there "
                                     "would destroy it")


class StdoutError(OSError):
    """A write to standard output that failed: the OSError names no file."""


def write_stdout(text: str) -> None:
    """Writes and flushes `text`, all of it; a failed write (a closed pipe, a full disk, a file
    size limit) raises StdoutError after pointing stdout at /dev/null, so the interpreter's last
    flush cannot fail again. The bytes go to stdout's binary buffer until every one is taken:
    a write that stops part-way (ulimit -f reached in the middle) returns a short count there,
    which the text layer drops without an error, and the next write fails with the reason."""
    stream = sys.stdout
    try:
        stream.flush()
        buffer = getattr(stream, "buffer", None)
        if buffer is None:  # _ClosedStdout
            stream.write(text)
            return
        data = memoryview(text.encode(stream.encoding or "utf-8", "backslashreplace"))
        while data:
            data = data[buffer.write(data):]
        buffer.flush()
    except OSError as error:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        raise StdoutError(error.errno, error.strerror or str(error)) from None


# Where a path names a descriptor or a device rather than a place for a file: /dev/stdout when
# stdout is a file would name that file, and replacing it would drop what the shell appended.
_DESCRIPTOR_FOLDERS = ("/dev/", "/proc/")


# How long an output that is a FIFO waits for a reader: one started beside the command
# (`cat out.fifo &`) opens it within this; with none, a blocking open would wait forever.
FIFO_READER_WAIT_S = 3.0


_FIFO_POLL_S = 0.02


def write_output(path: Path, text: str | bytes, errors: str = "strict") -> None:
    """Writes `text` (bytes as they are; text in UTF-8, `errors` as str.encode takes it) to the
    output file `path`, whole or not at all: into a new file beside it, renamed over it once
    complete, so a write that fails (a full disk, a signal) leaves an earlier output as it was
    and nothing under its name that is not whole. A symbolic link is written through (the file
    it names is replaced, the link stays); links that lead round in a loop are refused (ELOOP).
    A FIFO, a device or a descriptor (/dev/fd/3) is written to directly: it holds no file to
    lose; a FIFO no reader opens within FIFO_READER_WAIT_S is refused, and so is the file stdout
    or stderr goes to (standard_stream). Raises OSError naming `path`."""
    data = text if isinstance(text, bytes) else text.encode("utf-8", errors)
    _refuse_standard_stream(path)
    if str(path).startswith(_DESCRIPTOR_FOLDERS) or (path.exists() and not path.is_file()):
        with _naming(path), os.fdopen(_open_directly(path), "wb") as stream:
            stream.write(data)
    else:
        write_outputs({path: data})


def write_outputs(files: dict[Path, bytes]) -> None:
    """Writes the files of one output (report.md and its figures), all of them or none: each
    file's bytes go into a new file beside it, as write_output writes one, and only once every
    one is whole is each renamed over its path, with signals held from the first rename to the
    last (a stop signal then stops the command after them, not between them). Where one cannot be
    written (a full disk, a folder that may not be written, a signal), every new file is
    removed and no path is changed. Links are followed as write_output follows them, a file that
    may not be written is refused, and a new file takes the permissions of the file it replaces.
    A path that leads to no regular file (a folder, a FIFO, a device such as the terminal that
    /dev/tty names) is refused before anything is written: a rename cannot replace it, and
    what is written into it cannot be taken back where a later file fails; so is the file stdout
    or stderr goes to (standard_stream). What those checks
    cannot foresee, a rename itself failing (an I/O error, another process making a path a
    folder meanwhile), leaves the paths renamed before it new. Raises OSError naming the path
    that failed."""
    written: list[tuple[Path, Path, Path]] = []  # (path, its new file, the file it replaces)
    for path in files:
        _refuse_standard_stream(path)
    try:
        for path, data in files.items():
            with _naming(path):
                target = _followed(path)
                if target.exists() and not target.is_file():
                    raise OSError(errno.EINVAL, "exists and is not a regular file")
                written.append((path, _temporary_file(target, data), target))
        with _signals_held():
            for path, temporary, target in written:
                with _naming(path):
                    os.replace(temporary, target)
    except BaseException:
        for _, temporary, _ in written:
            with contextlib.suppress(OSError):  # gone where it was renamed
                temporary.unlink()
        raise


def _refuse_standard_stream(path: Path) -> None:
    """OSError naming `path` where it is the file stdout or stderr goes to (standard_stream)."""
    if stream := standard_stream(path):
        raise OSError(errno.EINVAL, goes_to(stream), str(path))


@contextlib.contextmanager
def _naming(path: Path) -> Iterator[None]:
    """An OSError raised inside names `path`, the output as it was given."""
    try:
        yield
    except OSError as error:
        raise OSError(error.errno, error.strerror or str(error), str(path)) from None


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """No signal is acted on inside: one that comes is delivered as the block ends."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _followed(path: Path) -> Path:
    """The file `path` names once its links are followed, or the name that file is created
    under (a link to nothing is written through, as the shell's `>` writes it). OSError ELOOP
    where its links lead round in a loop: no file ends them, and replacing the link would lose
    it."""
    target = Path(os.path.realpath(path))
    if target.is_symlink():  # realpath leaves the link it meets a second time unresolved
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP))
    return target


def _open_directly(path: Path) -> int:
    """A blocking descriptor that writes to the FIFO, device or descriptor `path`, opened as
    open(path, "wb") opens it but without waiting for a FIFO's reader: the open is retried
    until one comes, for FIFO_READER_WAIT_S, then OSError ENXIO "no reader on this FIFO"."""
    deadline = time.monotonic() + FIFO_READER_WAIT_S
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK
    while True:
        try:
            descriptor = os.open(path, flags, 0o666)
        except OSError as error:
            if error.errno != errno.ENXIO or not stat.S_ISFIFO(os.stat(path).st_mode):
                raise
            if time.monotonic() >= deadline:
                raise OSError(errno.ENXIO, "no reader on this FIFO") from None
            time.sleep(_FIFO_POLL_S)
            continue
        os.set_blocking(descriptor, True)
        return descriptor


def _temporary_file(target: Path, data: bytes) -> Path:
    """A new file holding `data` beside `target`, which is a regular file or none, to be renamed
    over it: it takes an existing target's permissions, and a target that may not be written is
    refused as writing it in place would be. Nothing is left of it where it cannot be written."""
    existing = os.stat(target) if target.exists() else None
    if existing is not None and not os.access(target, os.W_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
    temporary = target.with_name(f".{target.name[:100]}.{secrets.token_hex(6)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
            if existing is not None:
                os.fchmod(stream.fileno(), stat.S_IMODE(existing.st_mode))
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    return temporary

