"""How gpubench-tools fleet reads a file other than a result: a pod log, a .err or .status record,
limits, --expect-hosts.

Each is opened as results are, without waiting for a FIFO's writer, and read within a bound: whole
up to MAX_TEXT_BYTES, or, a pod log that is a regular file, a line at a time
(reading/fleet/pod_log.py). A device such as /dev/zero or a FIFO with no writer is one line, not a
hang; what keeps a file from being read is a FleetInputError naming it in one line.
"""

import os
from pathlib import Path

from gpubench_tools.reading.bounded_read import MAX_RESULT_BYTES, open_to_read, read_descriptor
from gpubench_tools.reading.fleet.records import FleetInputError

# The files gpubench-tools fleet reads whole (.err and .status records, limits, --expect-hosts) hold
# a few lines: eight results of the largest size a result file may have is far above any. A pod log
# that is a regular file is read a line at a time, with no bound on its whole (a fleet's collected
# log holds a result line per GPU, each up to the pod's log limit, 8 MiB by default), each line up
# to the largest result.
MAX_TEXT_BYTES = 8 * MAX_RESULT_BYTES
NOT_TEXT = "cannot read (not UTF-8 text)"


def read_bytes(path: Path, label: str | None = None) -> bytes:
    """A file gpubench-tools fleet reads other than a result (a pod log, a .err or .status record,
    limits, --expect-hosts), bounded as results are: a device such as /dev/zero or a FIFO with no
    writer is one line, not a hang. `label` names it in that line (the path)."""
    label = label or str(path)
    fd, info = opened(path, label)
    return bytes_of(fd, info, label)


def opened(path: Path, label: str) -> tuple[int, os.stat_result]:
    """open_to_read, its failure a FleetInputError naming `label`."""
    try:
        return open_to_read(path)
    except (OSError, ValueError) as error:
        raise unreadable(label, error) from None


def bytes_of(fd: int, info: os.stat_result, label: str) -> bytes:
    """What the descriptor `opened` gave holds, up to MAX_TEXT_BYTES; closed after."""
    try:
        data = read_descriptor(fd, info, MAX_TEXT_BYTES)
    except OSError as error:
        raise unreadable(label, error) from None
    finally:
        os.close(fd)
    if data is None:
        raise FleetInputError(f"{label}: larger than {MAX_TEXT_BYTES // 2**20} MiB, the largest "
                              "file gpubench-tools fleet reads")
    return data


def unreadable(label: str, error: OSError | ValueError) -> FleetInputError:
    """A file the system refuses to read, named by `label` with the system's reason."""
    return FleetInputError(f"{label}: cannot read ({getattr(error, 'strerror', None) or error})")


def read_text(path: Path, label: str | None = None) -> str:
    """read_bytes, as UTF-8 text."""
    label = label or str(path)
    try:
        return read_bytes(path, label).decode("utf-8")
    except UnicodeDecodeError:
        raise FleetInputError(f"{label}: {NOT_TEXT}") from None
