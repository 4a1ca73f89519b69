"""What the analyses of separate processes share: the spread between them (duet_reference.py,
context_mean.py, probe_columns.py), and for probe outputs (the last two) the command line that
names one output per process and each output read as numbered lines of words, bounded in size."""

import math
import statistics
from collections.abc import Callable
from typing import TypeVar

from gpubench_tools.cli.options import OneLineArgumentParser, script_error

Output = TypeVar("Output")

MAX_BYTES = 1 << 20  # a probe's output is a few hundred bytes


def numbered_words(path: str) -> list[tuple[int, list[str]]]:
    """(line number, its words) of each line of `path` that holds any. ValueError for a file
    too large to be a probe's output; OSError where it cannot be read."""
    with open(path, "rb") as stream:
        data = stream.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ValueError(f"{path}: over {MAX_BYTES} bytes: not a probe's output")
    lines = data.decode("utf-8", "replace").splitlines()
    return [(number, line.split()) for number, line in enumerate(lines, start=1) if line.split()]


def positive_values(words: list[str]) -> list[float] | None:
    """The words as finite positive numbers, or None where one is not."""
    try:
        values = [float(word) for word in words]
    except ValueError:
        return None
    return values if all(math.isfinite(v) and v > 0 for v in values) else None


def log_spread(values: list[float]) -> float:
    """The spread between processes, in %: 1.4826 x the median absolute deviation of
    log(value / the median)."""
    logs = [math.log(v) for v in values]
    centre = statistics.median(logs)
    return 100 * 1.4826 * statistics.median(abs(x - centre) for x in logs)


def read_processes(script: str, description: str, argv: list[str],
                   read: Callable[[str], Output]) -> list[tuple[str, Output]] | int:
    """(path, output) of each process's output named on the command line (two or more), read
    by `read`, which raises ValueError naming what is wrong; or, for bad usage or an output that
    cannot be read, the exit status 2 after script_error's one line."""
    parser = OneLineArgumentParser(prog=script, description=description)
    parser.add_argument("outputs", nargs="+", metavar="PROBE_OUTPUT.txt")
    paths = parser.parse_args(argv).outputs
    if len(paths) < 2:
        return script_error(script, "give two or more processes' outputs")
    try:
        return [(path, read(path)) for path in paths]
    except ValueError as error:
        return script_error(script, str(error))
    except OSError as error:
        return script_error(script, error)
