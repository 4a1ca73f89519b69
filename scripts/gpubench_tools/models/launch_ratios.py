"""The paired launch paths' ratios with their 95% intervals, read from launch/paired's `_vs_`
counters and pooled over runs (cli/ratios.py says how and why)."""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gpubench_tools.reading.errors import BadValueError, GpubenchJsonError
from gpubench_tools.reading.result_file import load
from gpubench_tools.reading.results import Benchmark, Result

SCRIPT = "gpubench-tools ratios"
VS = "_vs_"
# The ratio of a path to itself, measured in the same rounds: the host's resolution band.
SAME_PATH = "same_path"
NOT_RESOLVED = "no difference resolved"
SUFFIXES = ("_lo", "_hi", "_resolved")
CONFIDENCE = 0.95


@dataclass(frozen=True)
class RatioRow:
    benchmark: str  # the gpubench name, e.g. launch/paired/submit/params:0
    path: str
    reference: str  # a path, or params0: the same path at 0 parameter bytes
    ratio: float
    lo: float
    hi: float
    resolved: bool | None  # None for the same-path band, which is not a comparison
    runs: int = 1  # the runs pooled into it

    @property
    def verdict(self) -> str:
        if self.resolved is None:
            return "the host's band"
        if not self.resolved:
            return NOT_RESOLVED
        return "cheaper" if self.ratio < 1 else "dearer"


# (ratio, lo, hi): one ratio and its 95% interval
Interval = tuple[float, float, float]


def pooled(runs: Sequence[Interval]) -> Interval:
    """One ratio from several runs' ratios and intervals: their geometric mean, with the wider
    of two 95% half-widths in logarithms, the Student-t interval of the mean over the runs and
    the runs' own half-widths combined as those of a mean (root of the sum of squares over the
    count). A single run is returned as it is."""
    if len(runs) == 1:
        return runs[0]
    logs = np.log([ratio for ratio, _, _ in runs])
    centre = float(np.mean(logs))
    # Imported here: scipy.stats is most of a command's start-up time.
    from scipy.stats import t as student_t

    between = float(student_t.ppf(0.5 + CONFIDENCE / 2, len(runs) - 1)
                    * np.std(logs, ddof=1) / math.sqrt(len(runs)))
    within = math.sqrt(sum(((math.log(hi) - math.log(lo)) / 2) ** 2
                           for _, lo, hi in runs)) / len(runs)
    half = max(between, within)
    return math.exp(centre), math.exp(centre - half), math.exp(centre + half)


def difference_resolved(ratio: Interval, band: Interval) -> bool:
    """gpubench's rule (src/paired_ratio.hpp): the interval lies wholly outside both 1 and the
    band, the interval of one path against itself in the same rounds."""
    band_lo, band_hi = min(1.0, band[1]), max(1.0, band[2])
    return ratio[1] > band_hi or ratio[2] < band_lo


def _run_interval(result: Result, bench: Benchmark, run: dict[str, float], key: str) -> Interval:
    ratio, lo, hi = run[key], run[key + "_lo"], run[key + "_hi"]
    if not (0 < lo <= ratio <= hi and math.isfinite(hi)):
        raise BadValueError(f"{result.path}: {bench.name}: {key} = {ratio:g} lies outside "
                            f"its interval [{lo:g}, {hi:g}] or is not > 0")
    return ratio, lo, hi


def _ratio_keys(values: dict[str, float]) -> list[str]:
    return [key for key in values if VS in key and not key.endswith(SUFFIXES)
            and key + "_lo" in values and key + "_hi" in values]


def ratio_rows(result: Result) -> list[RatioRow]:
    """Every `<path>_vs_<reference>` ratio with its interval, in file order, pooled over the
    benchmark's runs where it has several (pooled()), with the verdict judged again on the
    pooled intervals. Raises BadValueError for a ratio outside its own interval, one that is
    not > 0, or one that some of the runs lack."""
    rows = []
    for bench in result.benchmarks.values():
        runs = bench.repetitions or [bench.values]
        keys = _ratio_keys(runs[0])
        if any(_ratio_keys(run) != keys for run in runs):
            raise BadValueError(f"{result.path}: {bench.name}: its runs hold different ratios")
        intervals = {key: pooled([_run_interval(result, bench, run, key) for run in runs])
                     for key in keys}
        band = next((v for k, v in intervals.items() if k.startswith(SAME_PATH + VS)), None)
        for key, interval in intervals.items():
            path, reference = key.split(VS, 1)
            if path == SAME_PATH:
                verdict = None
            elif len(runs) == 1:
                verdict = runs[0].get(key + "_resolved") == 1.0
            elif band is None:
                # Without the band, each run's own verdict is all that says how far the host's
                # band reached: the pooled interval must clear 1 and every run have resolved it.
                verdict = difference_resolved(interval, (1.0, 1.0, 1.0)) and \
                    all(run.get(key + "_resolved") == 1.0 for run in runs)
            else:
                verdict = difference_resolved(interval, band)
            rows.append(RatioRow(bench.name, path, reference, *interval, verdict, len(runs)))
    return rows


@dataclass(frozen=True)
class Agreement:
    first: RatioRow
    second: RatioRow

    @property
    def overlap(self) -> bool:
        """The intervals share a point; this holds wherever either contains the other's ratio."""
        return max(self.first.lo, self.second.lo) <= min(self.first.hi, self.second.hi)


def agreements(first: Sequence[RatioRow], second: Sequence[RatioRow]) -> list[Agreement]:
    """The ratios both runs measured, paired by benchmark, path and reference."""
    by_key = {(r.benchmark, r.path, r.reference): r for r in second}
    return [Agreement(r, by_key[(r.benchmark, r.path, r.reference)]) for r in first
            if (r.benchmark, r.path, r.reference) in by_key]


def _rows_of(path: Path) -> tuple[Result, list[RatioRow]]:
    result = load(path)
    rows = ratio_rows(result)
    if not rows:
        raise GpubenchJsonError(f"{path}: no paired launch ratios "
                                "(run gpubench with --benchmark_filter=launch/paired/)")
    return result, rows
