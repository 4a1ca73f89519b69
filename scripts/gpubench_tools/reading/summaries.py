"""Google Benchmark's aggregates held against the repetitions they summarise.

A run written with its repetitions and its aggregates (mean, median, stddev, cv) says each figure
twice. The toolkit's figure of a benchmark is its median aggregate, and its spread comes from the
repetitions, so an aggregate that says something else than its repetitions (a file edited, or put
together from two runs) would have a verdict use a number nothing measured: 2× slower
repetitions beside a median of the baseline's bandwidth would compare as unchanged. Which of the
two is the measurement cannot be told, so such a file is refused, in one line naming the
benchmark, the aggregate and the figure, rather than one of them believed or recomputed from the
other: a figure an aggregate states that no repetition holds, or one that is not that statistic
of the repetitions holding it, but for the rounding of a double.

A run written with aggregates only (--benchmark_report_aggregates_only=true) has nothing to hold
them against; its aggregates are read as they are.
"""

import math

import numpy as np

from gpubench_tools.reading.errors import BadValueError

# How far a median or mean Google Benchmark computed may lie from the same statistic of the
# repetitions it wrote, relative to the size of the values it is taken from: it prints doubles to
# 17 digits, and the medians of the committed results agree to 4e-16.
ROUNDING = 1e-9

# How far a variance (stddev², (cv × mean)²) may lie from the repetitions', relative to the mean
# of their squares: Google Benchmark computes it as mean(x²) - mean(x)², which cancels to a few
# ulps of mean(x²) where the spread is small beside the values.
_CANCELLATION = 1e-12

# The aggregates checked: those whose figures the toolkit reads.
AGGREGATES = ("median", "mean", "stddev", "cv")


def check_aggregates(where: str, aggregates: dict[str, dict[str, float]],
                     repetitions: list[dict[str, float]]) -> None:
    """BadValueError where one of `aggregates` (by name, each figure as the loader reads it: times
    in µs, a cv a ratio) states a figure none of `repetitions` holds, or one that is not that
    statistic of the repetitions holding it. Nothing to check without repetitions."""
    if not repetitions:
        return
    for name in AGGREGATES:
        for key, stated in aggregates.get(name, {}).items():
            found = np.array([r[key] for r in repetitions if key in r])
            figure = key.removesuffix("_us")
            if not found.size:
                raise BadValueError(
                    f"{where}: its {name} aggregate of {figure!r} is {stated:g}, which none of "
                    f"its {len(repetitions)} repetitions holds")
            expected = _disagreement(name, stated, found)
            if expected is not None:
                raise BadValueError(
                    f"{where}: its {name} aggregate of {figure!r} is {stated:g}, the {name} of "
                    f"its {found.size} repetitions {expected:g}")


def _disagreement(name: str, stated: float, values: np.ndarray) -> float | None:
    """The statistic `name` of `values` where `stated` is not it but for rounding, else None."""
    if name == "median":
        ordered = np.sort(values)
        middle = ordered[[(values.size - 1) // 2, values.size // 2]]
        median = float(np.mean(middle))
        close = abs(stated - median) <= ROUNDING * float(np.max(np.abs(middle)))
        return None if close else median
    mean = float(np.mean(values))
    if name == "mean":
        return None if abs(stated - mean) <= ROUNDING * float(np.mean(np.abs(values))) else mean
    stddev = _stddev(values)
    if name == "stddev":
        return None if _same_variance(stated, stddev, values) else stddev
    # cv = stddev / mean, of the mean's sign; undefined for a mean of 0 (written as 0 or not at
    # all, and then not read).
    if abs(mean) <= ROUNDING * float(np.mean(np.abs(values))):
        return None
    if stated * mean >= 0 and _same_variance(stated * mean, stddev, values):
        return None
    return stddev / mean


def _stddev(values: np.ndarray) -> float:
    """Google Benchmark's sample standard deviation: 0 for one value."""
    return float(np.std(values, ddof=1)) if values.size > 1 else 0.0


def _same_variance(stated: float, stddev: float, values: np.ndarray) -> bool:
    if not math.isfinite(stated * stated):
        return False
    allowed = ROUNDING * stddev * stddev + _CANCELLATION * float(np.mean(values * values))
    return abs(stated * stated - stddev * stddev) <= allowed
