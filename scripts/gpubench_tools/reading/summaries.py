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

from gpubench_tools.reading.errors import BadValueError

# How far a median or mean may lie from the same statistic of the repetitions written beside it,
# relative to the size of the values it is taken from. Google Benchmark prints doubles to 17
# digits (the medians of the committed results agree to 4e-16); a file written with six
# significant digits (printf's %g, as other writers do) is off by up to 5e-6 in each number. A
# change that small is far below every verdict's resolution (a 3% floor).
ROUNDING = 1e-5

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
    held: dict[str, _Held] = {}  # a run's few values in plain floats: numpy costs more per call
    for name in AGGREGATES:
        for key, stated in aggregates.get(name, {}).items():
            if key not in held:
                held[key] = _Held([r[key] for r in repetitions if key in r])
            values = held[key]
            figure = key.removesuffix("_us")
            if not values.count:
                raise BadValueError(
                    f"{where}: its {name} aggregate of {figure!r} is {stated:g}, which none of "
                    f"its {len(repetitions)} repetitions holds")
            expected = values.disagreement(name, stated)
            if expected is not None:
                raise BadValueError(
                    f"{where}: its {name} aggregate of {figure!r} is {stated:g}, the {name} of "
                    f"its {values.count} repetitions {expected:g}")


class _Held:
    """The values of one figure that a run's repetitions hold, and their statistics."""

    def __init__(self, values: list[float]) -> None:
        self.count = len(values)
        if not values:
            return
        ordered = sorted(values)
        self._middle = (ordered[(self.count - 1) // 2], ordered[self.count // 2])
        self._mean = sum(values) / self.count
        self._size = sum(map(abs, values)) / self.count  # how large they are: their mean size
        self._mean_square = sum(v * v for v in values) / self.count
        deviations = sum((v - self._mean) ** 2 for v in values)
        self._stddev = math.sqrt(deviations / (self.count - 1)) if self.count > 1 else 0.0

    def disagreement(self, name: str, stated: float) -> float | None:
        """The statistic `name` of the values where `stated` is not it but for rounding, else
        None."""
        if name == "median":
            low, high = self._middle
            median = (low + high) / 2
            close = abs(stated - median) <= ROUNDING * max(abs(low), abs(high))
            return None if close else median
        if name == "mean":
            return None if abs(stated - self._mean) <= ROUNDING * self._size else self._mean
        if name == "stddev":
            return None if self._same_variance(stated) else self._stddev
        # cv = stddev / mean, of the mean's sign; undefined for a mean of 0 (written as 0 or not
        # at all, and then not read).
        if abs(self._mean) <= ROUNDING * self._size:
            return None
        if stated * self._mean >= 0 and self._same_variance(stated * self._mean):
            return None
        return self._stddev / self._mean

    def _same_variance(self, stddev: float) -> bool:
        if not math.isfinite(stddev * stddev):
            return False
        # Each value off by up to `rounding` moves the variance by up to about 2·σ·rounding.
        rounding = ROUNDING * math.sqrt(self._mean_square)
        allowed = (ROUNDING * self._stddev ** 2 + _CANCELLATION * self._mean_square
                   + 2 * self._stddev * rounding + rounding ** 2)
        return abs(stddev * stddev - self._stddev ** 2) <= allowed
