"""Reading a file a command is handed, whatever it turns out to be: bounded, and never held.

A path given to a command, or found in a directory it lists, may name a FIFO no writer holds open,
a device such as /dev/zero, a directory, a link to nothing or a file far larger than any result.
open_to_read opens it without waiting for a FIFO's writer and refuses a directory;
read_descriptor and read_bounded read at most a bound (MAX_RESULT_BYTES unless given), a regular
file refused by its size before it is read. special_file says why a file a directory lists is
not opened at all, dangling_link why a name that is taken leads to no file. What the system
refuses is an OSError for each caller to say in its own words (result_file.read_file for a
result). compression names the compressed form a file's bytes take (gzip, xz, bzip2), and
unpacked unpacks every stream of them within the same bound, in time linear in their size however
many streams they hold, so a small file that would unpack to gigabytes costs no more than the
bound.
"""

import bz2
import errno
import lzma
import os
import select
import stat
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

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

# Input goes to a decoder in pieces of at most this many bytes, so what is left of a piece where a
# stream ends (the decoder's unused_data, a copy) is small however many streams follow. Handed all
# the rest at once, a decoder copies it at every stream's end: time quadratic in the number of
# streams (30 MiB of small xz streams took 15 minutes).
_INPUT_PIECE_BYTES = 2**12


class _Decoder(Protocol):
    """What the lzma and bz2 modules' decoders are: one stream's, fed input and asked for at most
    `max_length` bytes at a time."""

    eof: bool
    needs_input: bool
    unused_data: bytes

    def decompress(self, data: bytes | memoryview, max_length: int) -> bytes: ...


class _GzipMember:
    """zlib's decoder of one gzip member (header, data, and the trailer's CRC and size checked),
    as a _Decoder: zlib hands back the input a `max_length` held back, which this keeps."""

    def __init__(self) -> None:
        self._decoder = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        self._held_back = b""
        self._output_full = False  # the last call gave max_length bytes: more may be waiting

    @property
    def eof(self) -> bool:
        return self._decoder.eof

    @property
    def needs_input(self) -> bool:
        return not self._held_back and not self._output_full

    @property
    def unused_data(self) -> bytes:
        return self._decoder.unused_data

    def decompress(self, data: bytes | memoryview, max_length: int) -> bytes:
        chunk = self._decoder.decompress(self._held_back or data, max_length)
        self._held_back = self._decoder.unconsumed_tail
        self._output_full = len(chunk) == max_length
        return chunk


class _Streams:
    """The streams of `data` (gzip members, xz or bzip2 streams) read one after the other as one
    file, as `gzip -d`, `xz -d` and `bzip2 -d` read them, in time linear in the size of `data`.
    Zero bytes between and after streams are padding (xz pads streams so; the others' tools pass
    it over); any other byte after a stream begins the next. read() raises EOFError for a stream
    cut short, one of DAMAGED_STREAM for a damaged one or for bytes that begin no stream."""

    def __init__(self, data: bytes, new_decoder: Callable[[], _Decoder]) -> None:
        self._data = memoryview(data)
        self._offset = 0
        self._new_decoder = new_decoder
        self._decoder = new_decoder()
        self._pending: bytes | memoryview = b""  # input read ahead that no decoder has had

    def _next_input(self) -> bytes | memoryview:
        piece = self._pending or self._data[self._offset:self._offset + _INPUT_PIECE_BYTES]
        if not self._pending:
            self._offset += len(piece)
        self._pending = b""
        return piece

    def _next_stream(self) -> bool:
        """Starts a decoder on the stream after the one that ended, past any padding; False
        where none follows."""
        rest = self._decoder.unused_data.lstrip(b"\0")
        while not rest:
            piece = self._next_input()
            if not piece:
                return False
            rest = bytes(piece).lstrip(b"\0")
        self._pending = rest
        self._decoder = self._new_decoder()
        return True

    def read(self, size: int) -> bytes:
        """At most `size` bytes more; none at the end of the last stream."""
        while True:
            if self._decoder.eof and not self._next_stream():
                return b""
            data: bytes | memoryview = b""
            if self._decoder.needs_input:
                data = self._next_input()
                if not data:
                    raise EOFError("the data ends inside a stream")
            chunk = self._decoder.decompress(data, size)
            if chunk:
                return chunk


def _xz_decoder() -> lzma.LZMADecompressor:
    return lzma.LZMADecompressor(lzma.FORMAT_XZ, memlimit=XZ_MEMORY_BYTES)


# The compressed forms a result may take: the first bytes of each (no JSON text starts with
# them), the ending of a file's name in that form, and a decoder of one of its streams.
_COMPRESSIONS: dict[str, tuple[bytes, str, Callable[[], _Decoder]]] = {
    "gzip": (b"\x1f\x8b", ".gz", _GzipMember),
    "xz": (b"\xfd7zXZ\x00", ".xz", _xz_decoder),
    "bzip2": (b"BZh", ".bz2", bz2.BZ2Decompressor),
}
COMPRESSED_ENDINGS = tuple(ending for _, ending, _ in _COMPRESSIONS.values())
# What reading a damaged stream raises: bzip2's "Invalid data stream" is an OSError; a stream cut
# short raises EOFError.
DAMAGED_STREAM = (OSError, zlib.error, lzma.LZMAError)


def compression(data: bytes) -> str | None:
    """The compressed form `data` takes ("gzip", "xz", "bzip2"), or None."""
    return next((name for name, (magic, _, _) in _COMPRESSIONS.items()
                 if data.startswith(magic)), None)


def unpacked(data: bytes, form: str, limit_bytes: int = MAX_RESULT_BYTES) -> bytes | None:
    """The bytes `data` holds in the compressed form `form`, every stream of it, or None where
    they are more than `limit_bytes`: unpacked no further than that, in time linear in the size
    of `data`. A stream cut short raises EOFError; one damaged, or an xz stream needing more than
    XZ_MEMORY_BYTES, one of DAMAGED_STREAM."""
    try:
        return _read_at_most(_Streams(data, _COMPRESSIONS[form][2]).read, limit_bytes)
    except lzma.LZMAError as error:
        # Python's words for liblzma's LZMA_MEMLIMIT_ERROR.
        if str(error) != "Memory usage limit exceeded":
            raise
        raise lzma.LZMAError(f"its dictionary needs more than {XZ_MEMORY_BYTES // 2**20} MiB to "
                             "decode; xz -9's needs 65") from None


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
