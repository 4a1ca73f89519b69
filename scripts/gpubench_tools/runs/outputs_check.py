"""Whether an output can be written, found before a run rather than minutes after it, and
found without creating or removing anything; and the temporary folder the runs go to.

An output is refused where it is one of the inputs (by any path or link: writing there would
destroy it), where it is the file the command's standard output or error goes to (its lines
would be written into it), where it names a folder (a trailing /, /. or /..: written as the file
before the slash, it would land elsewhere than named), or where it cannot be written: its folder
missing or not writable, an existing file not writable, /dev/full (known by its device number,
not by a trial write, which would put a byte into any other device). `gpubench-tools merge`
writes a new file beside the output and renames it over it, so the output's folder must be
writable; a FIFO or a device it writes to directly.
"""

import contextlib
import os
import re
import stat
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from gpubench_tools.runs.messages import say, shown
from gpubench_tools.writing.outputs import goes_to, standard_stream

_FOLDER_NAME = re.compile(r"(?:^|/)(?:\.|\.\.)?\Z")
_FULL_DEVICE = "/dev/full"


def output_problem(out: str, inputs: Iterable[str]) -> str | None:
    """Why `out` cannot be written, as a line says it after the command's name; None where it
    can."""
    for path in inputs:
        if _same_file(out, path):
            return (f"{shown(out)}: is also an input ({shown(path)}); writing there would "
                    "destroy it")
    if out and (stream := standard_stream(Path(out))):
        return f"{shown(out)}: {goes_to(stream)}"
    if out and _FOLDER_NAME.search(out):
        return f"{shown(out)}: names a folder, not a file to write"
    target = os.path.realpath(out) if out else ""
    # A link left in the resolved path is a loop of links: nothing can be written there.
    if not target or os.path.islink(target) or not _replaceable(target):
        return f"{shown(out)}: cannot write the output there"
    if _is_full_device(target):
        return f"{shown(out)}: cannot write the output there (/dev/full fails every write)"
    return None


def _same_file(a: str, b: str) -> bool:
    """Whether both name one existing file, however each is spelled. The names are taken as
    given: o.json/ is no file, even where o.json is one."""
    try:
        return bool(a and b) and os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def _writable(path: str) -> bool:
    return os.access(path, os.W_OK, effective_ids=os.access in os.supports_effective_ids)


def _replaceable(target: str) -> bool:
    """Whether `gpubench-tools merge` can write `target`, a path with no link left in it."""
    folder = target.rpartition("/")[0] + "/"
    if os.path.exists(target) and not os.path.isfile(target):
        return not os.path.isdir(target) and _writable(target)
    return ((not os.path.exists(target) or _writable(target)) and os.path.isdir(folder)
            and _writable(folder))


def _is_full_device(target: str) -> bool:
    """Whether `target` is a character device with /dev/full's device number, which fails
    every write with ENOSPC."""
    try:
        device, full = os.stat(target), os.stat(_FULL_DEVICE)
    except OSError:
        return False
    return (stat.S_ISCHR(device.st_mode) and stat.S_ISCHR(full.st_mode)
            and device.st_rdev == full.st_rdev)


def temporary_folder(script: str, environ: Mapping[str, str]) -> Path | None:
    """A new folder in TMPDIR (/tmp where unset or empty). Where none can be made there (TMPDIR
    missing, a file, not writable), one line says why, `script` first, and None: the caller
    exits 2 before any run, as for an output it cannot write. TMPDIR is the one place tried:
    Python's tempfile would fall back to another folder unasked."""
    where = environ.get("TMPDIR") or "/tmp"
    prefix = script.replace(" ", "-") + "."
    try:
        return Path(tempfile.mkdtemp(prefix=prefix, dir=where))
    except OSError as error:
        say(script, f"cannot make a temporary folder in TMPDIR: {shown(where)}: "
                    f"{error.strerror or error}")
        return None


def remove_stale(path: str) -> None:
    """Removes `path` where it is there (a file of an earlier run, which would read as this
    run's)."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def has_content(path: Path) -> bool:
    """Whether `path` is a file with something in it (a run's result, a changed filter)."""
    try:
        return path.stat().st_size > 0
    except OSError:
        return False
