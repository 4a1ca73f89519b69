"""Load gpubench results: Google Benchmark JSON (--benchmark_out_format=json) from gpubench.

Every script reads results through `load`, so validation, name stripping and the choice of
the representative value per benchmark are made in one place.
"""

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np


class GpubenchJsonError(Exception):
    """A result file that cannot be used; str() is a one-line message naming the file."""


class MissingFileError(GpubenchJsonError):
    pass


class EmptyFileError(GpubenchJsonError):
    pass


class InvalidJsonError(GpubenchJsonError):
    pass


class NotGpubenchError(GpubenchJsonError):
    pass


class MalformedResultError(GpubenchJsonError):
    """gpubench output whose benchmark entries cannot be read (bad entry, duplicate name)."""


@dataclass(frozen=True)
class Metric:
    key: str  # a key of Benchmark.values
    unit: str
    scale: float  # multiplies the stored value to give `unit`
    bigger_is_better: bool


GBPS = Metric("bytes_per_second", "GB/s", 1e-9, True)
LAUNCH_US = Metric("us_per_launch", "µs", 1.0, False)
US_PER_COPY = Metric("us_per_copy", "µs", 1.0, False)
REAL_TIME_US = Metric("real_time_us", "µs", 1.0, False)
_PREFERRED_METRIC = {"copy": GBPS, "saxpy": GBPS, "launch": LAUNCH_US}

# Only these trailing components are Google Benchmark's; gpubench's own (params:256) stay.
_GB_SUFFIX = re.compile(
    r"manual_time|real_time|process_time"
    r"|(min_time|min_warmup_time):[0-9.]+[sx]?"
    r"|(iterations|repeats|threads):[0-9]+"
)
_US_PER_TIME_UNIT = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
# Numeric fields that describe the run rather than measure it.
_BOOKKEEPING = {
    "family_index", "per_family_instance_index", "repetitions", "repetition_index",
    "threads", "iterations",
}


def strip_gb_suffixes(name: str) -> str:
    parts = name.split("/")
    while len(parts) > 1 and _GB_SUFFIX.fullmatch(parts[-1]):
        parts.pop()
    return "/".join(parts)


@dataclass(frozen=True)
class Benchmark:
    name: str  # gpubench name, Google Benchmark suffixes stripped
    values: dict[str, float]  # median aggregate if reported, else mean of the repetitions
    repetitions: list[dict[str, float]]  # one per iteration entry, for statistics
    summary: str  # how `values` was obtained, e.g. "median of 5 repetitions"
    # Google Benchmark's cv aggregate (a fraction per key) and its repetition count, if written:
    # all that is left of the spread in a file written with aggregates only.
    cv: dict[str, float] | None = None
    cv_repetitions: int = 0

    @property
    def family(self) -> str:
        return self.name.split("/", 1)[0]

    @property
    def metric(self) -> Metric:
        preferred = _PREFERRED_METRIC.get(self.family, REAL_TIME_US)
        # launch/module/* may report only real_time.
        return preferred if preferred.key in self.values else REAL_TIME_US

    def value(self, metric: Metric | None = None) -> float:
        metric = metric or self.metric
        return self.values[metric.key] * metric.scale

    def repetition_values(self, metric: Metric | None = None) -> np.ndarray:
        metric = metric or self.metric
        return np.array([r[metric.key] for r in self.repetitions if metric.key in r]) * metric.scale


@dataclass(frozen=True)
class Result:
    path: Path
    context: dict[str, Any]
    benchmarks: dict[str, Benchmark]  # by gpubench name, in file order

    @property
    def gpu_name(self) -> str:
        return str(self.context.get("gpu_name", "unknown GPU"))

    @property
    def driver_version(self) -> str:
        return str(self.context.get("driver_version", "unknown"))

    @property
    def aggregates_only(self) -> bool:
        """Written with --benchmark_report_aggregates_only=true: some run has no repetitions."""
        return any(not b.repetitions for b in self.benchmarks.values())

    def describe(self) -> str:
        return f"{self.gpu_name}, driver {self.driver_version}"

    def family(self, family: str) -> list[Benchmark]:
        return [b for b in self.benchmarks.values() if b.family == family]


def load(path: str | Path) -> Result:
    path = Path(path)
    doc = _read_json(path)
    if not (
        isinstance(doc, dict)
        and isinstance(doc.get("benchmarks"), list)
        and isinstance(doc.get("context"), dict)
        and "gpubench_version" in doc["context"]
    ):
        raise NotGpubenchError(
            f"{path}: not gpubench output (needs a 'benchmarks' list and a 'context' "
            "with 'gpubench_version')"
        )
    return Result(path, doc["context"], _group_runs(path, doc["benchmarks"]))


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MissingFileError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise InvalidJsonError(f"{path}: not JSON (not UTF-8 text)") from None
    except OSError as e:
        raise MissingFileError(f"{path}: cannot read ({e.strerror})") from None
    if not text.strip():
        raise EmptyFileError(f"{path}: file is empty")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InvalidJsonError(
            f"{path}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}"
        ) from None


def _group_runs(path: Path, entries: list[Any]) -> dict[str, Benchmark]:
    medians: dict[str, tuple[dict[str, float], Any]] = {}
    cvs: dict[str, tuple[dict[str, float], int]] = {}
    iterations: dict[str, list[dict[str, float]]] = {}  # also fixes the order of runs
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise MalformedResultError(f"{path}: benchmark entry {index} has no name")
        if entry.get("error_occurred"):
            continue
        # An aggregate's name is run_name + "_" + aggregate_name; run_name ties it to its run.
        run = entry.get("run_name") or entry["name"]
        reps = iterations.setdefault(run, [])
        if entry.get("run_type") != "aggregate":
            reps.append(_numbers(path, entry))
        elif entry.get("aggregate_name") == "median":
            medians[run] = (_numbers(path, entry), entry.get("repetitions", "?"))
        elif entry.get("aggregate_name") == "cv":
            count = entry.get("repetitions")
            cvs[run] = (_numbers(path, entry, ratio=True), count if isinstance(count, int) else 0)

    benchmarks: dict[str, Benchmark] = {}
    for run, reps in iterations.items():
        if run in medians:
            values, count = medians[run]
            summary = f"median of {count} repetitions"
        elif reps:
            values = _mean(reps)
            summary = "single run" if len(reps) == 1 else f"mean of {len(reps)} repetitions"
        else:
            continue  # only stddev/cv aggregates: nothing to report
        name = strip_gb_suffixes(run)
        if name in benchmarks:
            raise MalformedResultError(
                f"{path}: two runs are named {name!r} once Google Benchmark suffixes are stripped"
            )
        cv, cv_count = cvs.get(run, (None, 0))
        benchmarks[name] = Benchmark(name, values, reps, summary, cv, cv_count)
    return benchmarks


def _numbers(path: Path, entry: dict[str, Any], ratio: bool = False) -> dict[str, float]:
    """Numeric measurements of one entry, with real_time/cpu_time converted to µs (or, for a
    `ratio` such as the cv aggregate, only renamed: a ratio has no unit)."""
    values = {
        key: float(v)
        for key, v in entry.items()
        if isinstance(v, (int, float)) and not isinstance(v, bool) and key not in _BOOKKEEPING
    }
    unit = entry.get("time_unit", "ns")
    if unit not in _US_PER_TIME_UNIT:
        raise MalformedResultError(f"{path}: {entry['name']}: unknown time_unit {unit!r}")
    for key in ("real_time", "cpu_time"):
        if key in values:
            values[f"{key}_us"] = values.pop(key) * (1.0 if ratio else _US_PER_TIME_UNIT[unit])
    return values


def _mean(reps: list[dict[str, float]]) -> dict[str, float]:
    keys = set().union(*reps)
    return {k: float(np.mean([r[k] for r in reps if k in r])) for k in keys}
