"""Reading a file a command is handed, whatever it turns out to be: bounded, and never held.

A path given to a command, or found in a directory it lists, may name a FIFO no writer holds open,
a device such as /dev/zero, a directory, a link to nothing or a file far larger than any result.
open_to_read opens it without waiting for a FIFO's writer and refuses a directory;
read_descriptor and read_bounded read at most a bound (MAX_RESULT_BYTES unless given), a regular
file refused by its size before it is read. special_file says why a file a directory lists is
not opened at all, dangling_link why a name that is taken leads to no file. What the system
refuses is an OSError for each caller to say in its own words (result_file.read_file for a
result). compression names the compressed form a file's bytes take (gzip, xz, bzip2), and
unpacked unpacks them within the same bound, so a small file that would unpack to gigabytes costs
no more than the bound.
"""

import bz2
import errno
import gzip
import io
import lzma
import os
import select
import stat
import zlib
from collections.abc import Callable
from pathlib import Path

# The largest result file the toolkit reads: 65 full gpubench runs merged, read in about 2 s and 230
# MB (docs/usage.md, "What the toolkit reads, and its limits"; results/cpu/script_limits.txt).
# Larger is refused before reading.
MAX_RESULT_BYTES = 32 * 2**20
_READ_CHUNK_BYTES = 2**20
# How long a FIFO is given for its writer to come: one started beside the command
# (`gzip -dc r.json.gz > fifo &`) opens it within this on a loaded machine; with none, the FIFO
# reads as empty rather than holding the command.
FIFO_WRITER_WAIT_S = 3.0


def dangling_link(path: Path) -> str | None:
    """Why the symbolic link `path` leads to nothing, or None where `path` is no link or leads
    to something: a name a command cannot use though it is taken."""
    try:
        os.stat(path)
        return None
    except (OSError, ValueError) as error:
        if not isinstance(error, OSError) or not path.is_symlink():
            return None
        if error.errno == errno.ELOOP:
            return "a link in a loop of links, which leads to no file"
        return f"a link to {os.path.realpath(path)}, which does not exist"


def open_to_read(path: Path) -> tuple[int, os.stat_result]:
    """A blocking descriptor reading `path`, and its status: a FIFO waits up to
    FIFO_WRITER_WAIT_S for its writer to come (one that never comes then reads as empty instead
    of holding the command), and is read whole from then on however slowly the writer writes; a
    directory is refused (IsADirectoryError). The caller closes it. OSError (ValueError for a
    NUL in the path) where it cannot be opened or examined."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if stat.S_ISFIFO(info.st_mode):
            _wait_for_writer(fd)
        os.set_blocking(fd, True)  # a pipe's writer may still be writing: wait for its data
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def _wait_for_writer(fd: int) -> None:
    """Until the FIFO `fd` has data or a writer that came and went, at most FIFO_WRITER_WAIT_S:
    read without a writer, a FIFO gives an end of file at once, so a writer that comes a moment
    late (a loaded machine) would otherwise find the command gone."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    poller.poll(int(FIFO_WRITER_WAIT_S * 1000))


def read_descriptor(fd: int, info: os.stat_result, limit_bytes: int) -> bytes | None:
    """The bytes of the descriptor `fd` that open_to_read gave with `info`, or None where it
    holds more than `limit_bytes`: a regular file by its size, before reading; a device or pipe
    (/dev/zero) once that much has come."""
    if stat.S_ISREG(info.st_mode) and info.st_size > limit_bytes:
        return None
    return _read_at_most(lambda size: os.read(fd, size), limit_bytes)


def _read_at_most(read: Callable[[int], bytes], limit_bytes: int) -> bytes | None:
    """What `read` gives to its end (an empty read), or None once more than `limit_bytes` has
    come: in chunks, so no more than the bound is held before the whole is joined."""
    chunks, size = [], 0
    while size <= limit_bytes:
        chunk = read(_READ_CHUNK_BYTES)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
    return None


def read_bounded(path: Path, limit_bytes: int = MAX_RESULT_BYTES) -> bytes | None:
    """The bytes of `path` (open_to_read), or None where it holds more than `limit_bytes`
    (read_descriptor)."""
    fd, info = open_to_read(path)
    try:
        return read_descriptor(fd, info, limit_bytes)
    finally:
        os.close(fd)


# xz's decoder takes the memory of the dictionary a stream names, up to 4 GiB, before any of its
# data: a stream naming more than `xz -9` does (64 MiB, 65 MiB to decode) is refused instead.
XZ_MEMORY_BYTES = 128 * 2**20


class _XzStreams:
    """The xz streams of `data` read one after the other as one file, as `xz -d` reads them, each
    decoded within XZ_MEMORY_BYTES. read() raises LZMAError for a damaged stream or one that
    needs more memory, EOFError for one cut short."""

    def __init__(self, data: bytes) -> None:
        self._decoder = self._new_decoder()
        self._input = data

    @staticmethod
    def _new_decoder() -> lzma.LZMADecompressor:
        return lzma.LZMADecompressor(lzma.FORMAT_XZ, memlimit=XZ_MEMORY_BYTES)

    def read(self, size: int) -> bytes:
        """At most `size` bytes more; none at the end of the last stream."""
        while True:
            if self._decoder.eof:
                self._input = self._decoder.unused_data.lstrip(b"\0")  # the streams' padding
                if not self._input:
                    return b""
                self._decoder = self._new_decoder()
            elif self._decoder.needs_input and not self._input:
                raise EOFError("an xz stream ends before its end marker")
            try:
                chunk = self._decoder.decompress(self._input, size)
            except lzma.LZMAError as error:
                # Python's words for liblzma's LZMA_MEMLIMIT_ERROR.
                if str(error) != "Memory usage limit exceeded":
                    raise
                raise lzma.LZMAError(f"its dictionary needs more than {XZ_MEMORY_BYTES // 2**20} "
                                     "MiB to decode; xz -9's needs 65") from None
            self._input = b""
            if chunk:
                return chunk


# The compressed forms a result may take: the first bytes of each (no JSON text starts with
# them), the ending of a file's name in that form, and a read(size) over what each holds: every
# stream or member of a file, as `gzip -d`, `xz -d` and `bzip2 -d` write them.
_COMPRESSIONS: dict[str, tuple[bytes, str, Callable[[bytes], Callable[[int], bytes]]]] = {
    "gzip": (b"\x1f\x8b", ".gz", lambda data: gzip.open(io.BytesIO(data)).read),
    "xz": (b"\xfd7zXZ\x00", ".xz", lambda data: _XzStreams(data).read),
    "bzip2": (b"BZh", ".bz2", lambda data: bz2.open(io.BytesIO(data)).read),
}
COMPRESSED_ENDINGS = tuple(ending for _, ending, _ in _COMPRESSIONS.values())
# What reading a damaged stream raises: gzip.BadGzipFile and bzip2's "Invalid data stream" are
# OSErrors; a stream cut short raises EOFError.
DAMAGED_STREAM = (OSError, zlib.error, lzma.LZMAError)


def compression(data: bytes) -> str | None:
    """The compressed form `data` takes ("gzip", "xz", "bzip2"), or None."""
    return next((name for name, (magic, _, _) in _COMPRESSIONS.items()
                 if data.startswith(magic)), None)


def unpacked(data: bytes, form: str, limit_bytes: int = MAX_RESULT_BYTES) -> bytes | None:
    """The bytes `data` holds in the compressed form `form`, or None where they are more than
    `limit_bytes`: unpacked no further than that. A stream cut short raises EOFError; one
    damaged, or an xz stream needing more than XZ_MEMORY_BYTES, one of DAMAGED_STREAM."""
    return _read_at_most(_COMPRESSIONS[form][2](data), limit_bytes)


# What a directory's entry is where it is no regular file, by the test of its mode.
_SPECIAL_FILES = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                  (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def special_file(path: Path) -> str | None:
    """Why a file found by listing a directory is not opened where it is no regular file: a
    FIFO's writer could hold the command, and a device such as /dev/zero holds no result. None
    for a regular file, and for one that cannot be examined (its reader says why)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    return next((f"not a regular file: {kind}" for is_kind, kind in _SPECIAL_FILES
                 if is_kind(mode)), None)
