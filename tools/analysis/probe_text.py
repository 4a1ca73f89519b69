"""What the analyses of probe outputs share (context_mean.py, probe_columns.py): a probe's
output read as numbered lines of words, bounded in size, and the spread between processes."""

import math
import statistics

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
