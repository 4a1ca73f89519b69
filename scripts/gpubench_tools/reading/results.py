"""Load gpubench results: Google Benchmark JSON (--benchmark_out_format=json) from gpubench.

Every script reads results through `load`, so validation, name stripping and the choice of
the representative value per benchmark are made in one place. `load` accepts only what the
scripts can use: a JSON object with a `context` object and a `benchmarks` list, no object giving
a key two different values, every field the scripts read of the type Google Benchmark writes,
every number 0 or between 1e-30 and 1e30 in size (a time in µs), no benchmark twice, a median
aggregate only where it is the median of the repetitions beside it, at least one successful
benchmark. Anything else raises a
`GpubenchJsonError` whose str() is one line naming the file and the problem.

What a benchmark name means is read from the families' facts (docs/family-facts.md): the
context's `gpubench_families` where gpubench wrote it, else facts inferred from the benchmarks
by the rule that document states. `Benchmark.metric` is a benchmark's figure,
`Benchmark.panel_metrics` the figures the plots draw of it, `Benchmark.parts` its name read as
family, series, argument and device, `Result.families` the facts of each family the file holds:
no script needs to know a family by name.

A result file is read as bounded_read reads any file a script is handed: at most
MAX_RESULT_BYTES, a FIFO without a writer not waited for; one compressed with gzip, xz or bzip2
(known by its first bytes, whatever its name) is read as the JSON it holds, at most
MAX_RESULT_BYTES of it too. read_file says in this module's errors what keeps one from being
read.

What the scripts share on the command line besides reading results is in script_cli: their
argument parser, the one-line report of this module's errors, their stdout and output file
writers.
"""

import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from gpubench_tools.reading.bounded_read import (
    COMPRESSED_ENDINGS,
    DAMAGED_STREAM,
    MAX_RESULT_BYTES,
    compression,
    dangling_link,
    read_bounded,
    unpacked,
)
from gpubench_tools.reading.safe_text import ascii_decimal, one_line, printable, shorten


@dataclass(frozen=True)
class Setting:
    """A context key that says how a run measured, beyond its GPU and gpubench's version."""
    key: str
    family: str | None  # the family whose figures it changes; None: every family
    absent: str | None  # what a file without the key measured; None: not known


# gpubench's measurement settings, in which gpubench-tools merge pools and gpubench-tools compare judges only runs
# alike: saxpy_l2 is --l2, whether saxpy flushes the L2 before each timed launch (every run
# writes it); energy, written with --energy alone, is about a second more of each benchmark's
# operation after its timed loop, which warms the GPU for the next benchmark;
# gpubench_build_type is CMake's (Release, Debug), whose host code times the host-timed figures;
# benchmark_min_time and benchmark_min_warmup_time are Google Benchmark's, which call a
# benchmark's body again until that much is measured (docs/performance.md).
SETTING_SHOWN = 80  # characters of a measurement setting's value a script shows
# The filter a run was given (absent: none): among fewer others a benchmark can measure
# otherwise, so gpubench-tools compare notes runs of different filters and gpubench-tools merge pools none.
FILTER_KEY = "benchmark_filter"
# Whether a run interleaved the repetitions of its benchmarks at random ("true" or "false"): each
# repetition then runs beside other benchmarks, so gpubench-tools compare notes runs that differ in it.
INTERLEAVING_KEY = "benchmark_enable_random_interleaving"
MEASUREMENT_SETTINGS = (Setting("saxpy_l2", "saxpy", None), Setting("energy", None, "off"),
                        Setting("gpubench_build_type", None, None),
                        Setting("benchmark_min_time", None, None),
                        Setting("benchmark_min_warmup_time", None, None))


def setting_text(context: dict[str, Any], setting: Setting) -> str | None:
    """How a run measured in `setting`, as text: energy "on" or "off" (its text says how a
    window is taken, the same in one build), saxpy_l2 as written; None where not known."""
    if setting.key not in context:
        return setting.absent
    if setting.key == "energy":
        return "on"
    value = context[setting.key]
    return value if isinstance(value, str) else repr(value)


# The names of the result files a script finds by listing a folder (gpubench-tools limits, gpubench-tools gallery):
# gpubench's JSON, and that JSON compressed (.json.gz, .json.xz, .json.bz2). A file named on the
# command line is read by its content whatever its name.
RESULT_SUFFIXES = (".json", *(".json" + ending for ending in COMPRESSED_ENDINGS))


class GpubenchJsonError(Exception):
    """A result file that cannot be used; str() is a one-line message naming the file."""


class MissingFileError(GpubenchJsonError):
    """No such file, or a path that cannot be read as a file (a directory, no permission)."""


class EmptyFileError(GpubenchJsonError):
    pass


class InvalidJsonError(GpubenchJsonError):
    """Not JSON, or JSON Python cannot hold (nested too deeply, an integer of too many digits)."""


class NotGpubenchError(GpubenchJsonError):
    """JSON, but not a gpubench result: no `benchmarks` list or `context` with its version."""


class MalformedResultError(GpubenchJsonError):
    """gpubench output whose benchmark entries or context cannot be read."""


class WrongTypeError(MalformedResultError):
    """A field holds another type than Google Benchmark writes (`"run_name": 5`)."""


class BadValueError(MalformedResultError):
    """A number that is no measurement: NaN, infinite, too large for a float, outside 1e-30 to
    1e30 in size, or not > 0 where a measurement is."""


class DuplicateBenchmarkError(MalformedResultError):
    """The same benchmark, repetition or aggregate appears twice."""


class TooLargeError(GpubenchJsonError):
    """More than MAX_RESULT_BYTES (a device such as /dev/zero too), MAX_CONTAINERS objects and
    lists or MAX_VALUES values: refused before it is parsed."""


class NoBenchmarksError(GpubenchJsonError):
    """No benchmark in the file succeeded: nothing to compare, plot or export."""


class OutputIsInputError(GpubenchJsonError):
    """An output path that names a file the script reads: writing it would destroy that input."""


@dataclass(frozen=True)
class Metric:
    key: str  # a key of Benchmark.values
    unit: str
    scale: float  # multiplies the stored value to give `unit`
    bigger_is_better: bool


# The figures of a file without facts (docs/family-facts.md): bytes_per_second where a benchmark
# carries it, else its first us_per_* counter, else real_time; real_time also for a benchmark
# that carries none of its family's declared figures.
GBPS = Metric("bytes_per_second", "GB/s", 1e-9, True)
REAL_TIME_US = Metric("real_time_us", "µs", 1.0, False)
_INFERRED_TIME_PREFIX = "us_per_"
FAMILIES_KEY = "gpubench_families"
FACTS_SCHEMA = 1
ARGUMENT_UNITS = ("bytes", "elements")
DEVICE_PREFIX = "device:"
# A name component naming pageable host memory, which the CPU stages: a figure through it moves
# with the host whatever clock timed it.
_PAGEABLE = "pageable"


@dataclass(frozen=True)
class Argument:
    """The name component that carries a case's argument: `key:number`, the bare number where
    `key` is empty."""
    key: str
    unit: str  # "bytes" or "elements"


# The fall of the SM clock across a timed loop that marks it throttled (gpubench's
# ClockWatch::throttle_drop).
THROTTLE_DROP = 0.10
# A condition of a figure, not a figure: the SM clock in MHz as a kernel read it right after the
# benchmark's timed loop (clock64 cycles over %globaltimer nanoseconds).
KERNEL_SM_CLOCK = "sm_clock_kernel_mhz"

@dataclass(frozen=True)
class FamilyFacts:
    name: str
    order: int
    grammar: str
    argument: Argument | None  # None: no case of the family takes an argument
    figures: tuple[Metric, ...]  # in order of preference
    declared: bool  # from the context's gpubench_families, not inferred from the benchmarks
    panels: tuple[Metric, ...] = ()  # the figures declared with "panel": drawn beside the figure


@dataclass(frozen=True)
class NameParts:
    """A benchmark name read by the facts: `family/<series>/<argument>/device:N`."""
    family: str
    series: str  # what is left without family, argument and device
    argument: int | None
    device: int | None
    argument_key: str = ""  # the key the argument component writes ("params" of params:256)


def split_name(name: str, facts: FamilyFacts | None) -> NameParts:
    """`name` read by its family's declared `facts`, or, where None, by the inferred rule: the
    argument is a last component that is a number or key:number, whatever the key."""
    family, *rest = name.split("/")
    device = None
    if rest and rest[-1].startswith(DEVICE_PREFIX):
        device = ascii_decimal(rest[-1][len(DEVICE_PREFIX):])
        if device is not None:
            rest.pop()
    argument, argument_key = None, ""
    if rest and (facts is None or facts.argument is not None):
        key, colon, digits = rest[-1].rpartition(":")
        wanted = key if facts is None else facts.argument.key
        if key == wanted and bool(colon) == bool(key):
            argument = ascii_decimal(digits)
            if argument is not None:
                argument_key = key
                rest.pop()
    return NameParts(family, "/".join(rest), argument, device, argument_key)


def inferred_metric(values: dict[str, float]) -> Metric:
    """A figure by the rule for files without facts."""
    if GBPS.key in values:
        return GBPS
    counter = next((k for k in values if k.startswith(_INFERRED_TIME_PREFIX)), None)
    return Metric(counter, "µs", 1.0, False) if counter is not None else REAL_TIME_US

# Only these trailing components are Google Benchmark's; gpubench's own (params:256) stay.
_GB_SUFFIX = re.compile(
    r"manual_time|real_time|process_time"
    r"|(min_time|min_warmup_time):[0-9.]+[sx]?"
    r"|(iterations|repeats|threads):[0-9]+"
)
# Google Benchmark's time units, each as a power of ten of nanoseconds.
NS_EXPONENT = {"ns": 0, "us": 3, "ms": 6, "s": 9}
_US_PER_TIME_UNIT = {unit: 10.0 ** (exponent - 3) for unit, exponent in NS_EXPONENT.items()}
# Integer fields that describe the run rather than measure it.
_BOOKKEEPING = {
    "family_index", "per_family_instance_index", "repetitions", "repetition_index",
    "threads", "iterations",
}
_LARGEST_COUNT = 2**63 - 1  # Google Benchmark's counts are int64
# Fields the scripts read as text, and the measurements they read as numbers.
_STRING_FIELDS = ("name", "run_name", "run_type", "aggregate_name", "time_unit")
_MEASUREMENTS = ("real_time", "cpu_time", "bytes_per_second", "items_per_second",
                 "us_per_launch", "us_per_copy")
# A time or a rate of one run is > 0; a spread aggregate (stddev, cv) may be 0.
_POSITIVE = ("real_time", "bytes_per_second", "us_per_launch", "us_per_copy")
TIME_FIELDS = ("real_time", "cpu_time")  # in the entry's time_unit; the loader keeps them in µs
# The sizes a nonzero number the scripts read lies between, a time in µs: no figure or counter
# of a GPU benchmark comes near either in any unit (bytes per second stay below 1e14, an hour
# is 4e9 µs, a clock tick 1e-3 µs). A facts scale lies in the same range, so what the scripts
# compute from them stays a finite nonzero float (within 1e±308): a figure in its unit within
# 1e±60, a ratio of two within 1e±120 and its square within 1e±240, a sum over repetitions a
# few digits more than its largest term.
_LARGEST_MAGNITUDE = 1e30
_SMALLEST_MAGNITUDE = 1e-30
# How far an aggregate Google Benchmark computed may lie from the same statistic of the
# repetitions it wrote, relative to it: both are doubles as it prints them, and the medians of
# the committed results agree to 4e-16.
_ROUNDING = 1e-9
# gpubench's own counters about a figure's timing: the relative spread of a repetition's timed
# batches in percent (>= 0), and 1 for a figure timed on the host clock, 0 for GPU time.
NOISE_PCT, HOST_TIMED = "noise_pct", "host_timed"
# A MAD times this estimates the standard deviation of normally distributed values.
_MAD_TO_SD = 1.4826
_SPREAD_AGGREGATES = {"stddev", "cv"}
# The most objects and lists, and values, a result may hold: above what MAX_RESULT_BYTES of
# gpubench runs hold (45 000 to 52 000 objects and lists, 1.1 million values), far below what
# that many bytes of `{}` or `0,` make (32 MiB of `{}` takes 0.86 GB to read). Within
# both, no file takes more than about 490 MB to read (README, "Limits of the scripts"). Counted
# before parsing (json_counts).
MAX_CONTAINERS = 2**17
MAX_VALUES = 2**21
# A JSON string, or an unterminated one to the end of the text: one match from each opening
# quote, so a text of escaped quotes never closed is scanned once, not once per quote in it.
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\[\s\S][^"\\]*)*(?:"|\\?\Z)')
# Context keys the scripts decide on; gpubench writes each as a string.
_CONTEXT_STRINGS = ("gpubench_version", "gpu_name", "driver_version", "cuda_runtime_version")


def strip_gb_suffixes(name: str) -> str:
    parts = name.split("/")
    while len(parts) > 1 and _GB_SUFFIX.fullmatch(parts[-1]):
        parts.pop()
    return "/".join(parts)


T = TypeVar("T")


def family_of(name: str) -> str:
    """A benchmark's family: the first component of its name."""
    return name.split("/", 1)[0]


def by_family(items: Iterable[T], name: Callable[[T], str]) -> dict[str, list[T]]:
    """`items` grouped by the family of each one's name, families in the order they first
    appear: in one pass, as a file may hold tens of thousands of families."""
    grouped: dict[str, list[T]] = {}
    for item in items:
        grouped.setdefault(family_of(name(item)), []).append(item)
    return grouped


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
    facts: FamilyFacts | None = None  # its family's declared facts; None: read by inference
    stddev: dict[str, float] | None = None  # Google Benchmark's stddev aggregate, if written

    @property
    def family(self) -> str:
        return family_of(self.name)

    @property
    def parts(self) -> NameParts:
        return split_name(self.name, self.facts)

    @property
    def metric(self) -> Metric:
        """The first of the family's figures this benchmark carries; real_time without one."""
        if self.facts is None:
            return inferred_metric(self.values)
        return next((m for m in self.facts.figures if m.key in self.values), REAL_TIME_US)

    @property
    def panel_metrics(self) -> list[Metric]:
        """The figures the plots draw of this benchmark, each in panels of its own: its figure,
        then each figure its family declares with `panel` that it carries."""
        metric = self.metric
        panels = self.facts.panels if self.facts is not None else ()
        return [metric, *(m for m in panels if m.key in self.values and m != metric)]

    def value(self, metric: Metric | None = None) -> float:
        metric = metric or self.metric
        return self.values[metric.key] * metric.scale

    def summary_of(self, metric: Metric | None = None) -> str:
        """How a figure's value was obtained: the summary, and how many of the repetitions hold
        the figure where some lack it (a counter written only where its read succeeded), as
        Google Benchmark's aggregates and the mean are taken over those alone."""
        metric = metric or self.metric
        held = sum(metric.key in r for r in self.repetitions)
        if held == len(self.repetitions):
            return self.summary
        return f"{self.summary}; {metric.key} in {held} of them"

    def repetition_values(self, metric: Metric | None = None) -> np.ndarray:
        metric = metric or self.metric
        return np.array([r[metric.key] for r in self.repetitions if metric.key in r]) * metric.scale

    def cv_pct(self, metric: Metric | None = None) -> tuple[float, int] | None:
        """Coefficient of variation in percent (sample standard deviation over mean) of a figure
        and the repetitions behind it: from the repetitions where the file has them, else from
        Google Benchmark's cv aggregate (a file written with aggregates only); None without two
        repetitions."""
        metric = metric or self.metric
        values = self.repetition_values(metric)
        if values.size >= 2:
            mean = float(np.mean(values))  # 0: a figure of 0 (a gap of 0 ns) has no relative spread
            cv = float(100 * np.std(values, ddof=1) / mean) if mean else math.nan
            return cv, int(values.size)
        if self.cv is not None and self.cv_repetitions >= 2 and metric.key in self.cv:
            return 100 * self.cv[metric.key], self.cv_repetitions
        return None

    def robust_spread_pct(self, metric: Metric | None = None) -> float | None:
        """Relative spread of one repetition in percent, robust to one odd repetition: the
        median absolute deviation from the median, scaled to a standard deviation, over the
        median; None without two repetitions."""
        values = self.repetition_values(metric)
        if values.size < 2:
            return None
        median = float(np.median(values))
        if not median:
            return math.nan
        return float(100 * _MAD_TO_SD * np.median(np.abs(values - median)) / median)

    @property
    def throttled(self) -> bool:
        """Whether any run of it had its clocks held down while it was timed: gpubench's
        clock_limited_ms above 0 (an NVML clock-limiting policy held the clocks during the
        timed loop), or the SM clock at the loop's end more than 10% below its start."""
        for run in self.repetitions or [self.values]:
            start, end = run.get("sm_clock_start_mhz"), run.get("sm_clock_end_mhz")
            if run.get("clock_limited_ms", 0) > 0 or (start and end
                                                      and end < (1 - THROTTLE_DROP) * start):
                return True
        return False

    @property
    def kernel_sm_clock_mhz(self) -> float | None:
        """The SM clock its kernels read after the timed loop, the median over the repetitions;
        None where gpubench wrote none (no GPU ran it, or a file written before it read one)."""
        found = [r[KERNEL_SM_CLOCK] for r in self.repetitions if KERNEL_SM_CLOCK in r]
        if found:
            return float(np.median(found))
        return self.values.get(KERNEL_SM_CLOCK)

    @property
    def noise_pct(self) -> float | None:
        """gpubench's noise_pct: the relative spread of a repetition's timed batches, in
        percent (the median over the repetitions); None in files written before it."""
        found = [r[NOISE_PCT] for r in self.repetitions if NOISE_PCT in r]
        if found:
            return float(np.median(found))
        return self.values.get(NOISE_PCT)

    @property
    def host_timed(self) -> bool | None:
        """True for a figure timed on the host clock, False for GPU time; None in files
        written before gpubench said which."""
        found = {r[HOST_TIMED] for r in self.repetitions if HOST_TIMED in r}
        if not found and HOST_TIMED in self.values:
            found = {self.values[HOST_TIMED]}
        return bool(max(found)) if found else None

    @property
    def host_paced(self) -> bool | None:
        """Whether the figure moves with the host, the one rule every script judges by:
        gpubench's host_timed (1 in any repetition), or a name component `pageable` (the CPU
        stages pageable memory whatever clock times the copy; builds before host_timed held
        it wrote nothing, earlier ones 0). None where neither says: a file written before
        host_timed, of no pageable memory."""
        if _PAGEABLE in self.name.split("/"):
            return True
        return self.host_timed


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
    def cuda_version(self) -> str:
        """The CUDA runtime gpubench was built against."""
        return str(self.context.get("cuda_runtime_version", "unknown"))

    @property
    def aggregates_only(self) -> bool:
        """Written with --benchmark_report_aggregates_only=true: some run has no repetitions."""
        return any(not b.repetitions for b in self.benchmarks.values())

    @property
    def l2_bytes(self) -> int | None:
        """The device's L2 size in bytes (the context's l2_bytes); None where the context has
        no such number or 0."""
        value = ascii_decimal(str(self.context.get("l2_bytes", "")))
        return value if value else None

    def describe(self) -> str:
        """The GPU and driver as one printable line (a newline in either is shown escaped), each
        at most 200 characters: it heads reports and each entry of an export."""
        return (f"{shorten(printable(self.gpu_name), 200)}, "
                f"driver {shorten(printable(self.driver_version), 200)}")

    def family(self, family: str) -> list[Benchmark]:
        return list(self._by_family.get(family, ()))

    @cached_property
    def _by_family(self) -> dict[str, list[Benchmark]]:
        """The benchmarks of each family, grouped once: a script asks for each family's, and a
        scan of every benchmark per family takes hours for a file of tens of thousands."""
        return by_family(self.benchmarks.values(), lambda bench: bench.name)

    @cached_property
    def families(self) -> dict[str, FamilyFacts]:
        """The facts of every family the file has benchmarks of, in the families' order (those
        declared in the context first, by their `order`; the others as they first appear)."""
        declared = declared_facts(self.path, self.context)
        present = list(self._by_family)
        facts = {f: declared[f] for f in sorted((f for f in present if f in declared),
                                                key=lambda f: declared[f].order)}
        for family in present:
            if family not in facts:
                figures = dict.fromkeys(b.metric for b in self.family(family))
                facts[family] = FamilyFacts(family, 0, "", Argument("", "bytes"),
                                            tuple(figures), False)
        return facts

    @property
    def separate_runs(self) -> int:
        """How many separate processes the file holds runs of: the context's `merged_runs`
        (a file merged by gpubench-tools merge, as scripts/gpubench-tools record records), else 1."""
        return self.context.get("merged_runs", 1)

    def context_text(self, key: str) -> str | None:
        """A context value as one line of text (lists and objects as compact JSON), or None
        where the key is absent."""
        if key not in self.context:
            return None
        value = self.context[key]
        if isinstance(value, str):
            return value
        try:
            return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        except (RecursionError, ValueError):  # ValueError: an int of too many digits
            return f"({type(value).__name__} too large to show)"


def load(path: str | Path, require_benchmarks: bool = True) -> Result:
    """Read and validate one gpubench result. With `require_benchmarks`, a file in which no
    benchmark succeeded raises NoBenchmarksError."""
    return load_with_document(path, require_benchmarks)[0]


def load_with_document(path: str | Path, require_benchmarks: bool = True
                       ) -> tuple[Result, dict[str, Any]]:
    """As `load`, with the JSON document the result was read from, for a script that needs
    more of the file than a Result keeps: from the one read, since a pipe (`<(...)`) can be
    read only once."""
    path = Path(path)
    doc = read_json(path)
    return _validated(doc, path, require_benchmarks), doc


def read_json(path: str | Path) -> Any:
    """Any JSON file (another tool's output), read within the limits and with the messages of a
    result file: GpubenchJsonError names what keeps it from being read."""
    path = Path(path)
    return _parse_json(_read_text(path), path)


def loads(text: str, path: Path, require_benchmarks: bool = True) -> Result:
    """Validate one gpubench result given as JSON text, as `load` does a file's; `path` names it
    in messages (`log.jsonl:3` for a line of a log)."""
    return _validated(_parse_json(text, path), path, require_benchmarks)


def _validated(doc: Any, path: Path, require_benchmarks: bool) -> Result:
    if not isinstance(doc, dict):
        raise NotGpubenchError(f"{path}: not gpubench output (the JSON is {_kind(doc)}, "
                               "not an object)")
    for key, kind in (("benchmarks", list), ("context", dict)):
        if key not in doc:
            raise NotGpubenchError(f"{path}: not gpubench output (no {key!r})")
        if not isinstance(doc[key], kind):
            raise WrongTypeError(f"{path}: {key!r} is {_kind(doc[key])}, not "
                                 f"{'a list' if kind is list else 'an object'}")
    context = doc["context"]
    if "gpubench_version" not in context:
        raise NotGpubenchError(f"{path}: not gpubench output (its 'context' has no "
                               "'gpubench_version')")
    for key in _CONTEXT_STRINGS:
        if key in context and not isinstance(context[key], str):
            raise WrongTypeError(f"{path}: context {key!r} is {_kind(context[key])}, "
                                 "not a string")
    count = context.get("merged_runs", 1)
    # Each run gives a file one entry or more, and a file holds at most MAX_CONTAINERS objects.
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_CONTAINERS:
        raise WrongTypeError(f"{path}: merged_runs {one_line(str(count)[:40])!r} is no count "
                             "of runs")
    benchmarks = _group_runs(path, doc["benchmarks"], declared_facts(path, context))
    if require_benchmarks and not benchmarks:
        entries = len(doc["benchmarks"])
        raise NoBenchmarksError(
            f"{path}: no benchmarks" if entries == 0
            else f"{path}: no successful benchmark (all {entries} entries failed)")
    return Result(path, context, benchmarks)


def _read_text(path: Path) -> str:
    try:
        return read_file(path).decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidJsonError(f"{path}: not JSON (not UTF-8 text)") from None


def read_file(path: str | Path) -> bytes:
    """The bytes of the file at `path`, unpacked where it is compressed, at most
    MAX_RESULT_BYTES of them; GpubenchJsonError names what keeps it from being read (no such
    file, a link to nothing, a folder, too large, a damaged compressed file)."""
    path = Path(path)
    try:
        data = read_bounded(path)
    except FileNotFoundError:
        raise MissingFileError(f"{path}: {dangling_link(path) or 'no such file'}") from None
    except IsADirectoryError:
        raise MissingFileError(f"{path}: is a directory, not a result file") from None
    except OSError as e:
        raise MissingFileError(f"{path}: cannot read ({e.strerror or e})") from None
    except ValueError:  # a NUL in the path, which no file name holds
        raise MissingFileError(f"{path}: no such file (the path holds a NUL)") from None
    if data is None:
        raise TooLargeError(f"{path}: larger than {MAX_RESULT_BYTES // 2**20} MiB, the largest "
                            "result file the scripts read")
    form = compression(data)
    return data if form is None else _unpacked(data, form, path)


def _unpacked(data: bytes, form: str, path: Path) -> bytes:
    try:
        held = unpacked(data, form)
    except EOFError:
        raise InvalidJsonError(f"{path}: {form} data cut short") from None
    except DAMAGED_STREAM as e:
        raise InvalidJsonError(f"{path}: {form} data that cannot be unpacked "
                               f"({one_line(str(e))})") from None
    if held is None:
        raise TooLargeError(f"{path}: more than {MAX_RESULT_BYTES // 2**20} MiB once unpacked, "
                            "the largest result file the scripts read")
    return held


def _parse_json(text: str, path: Path) -> Any:
    if not text.strip():
        raise EmptyFileError(f"{path}: file is empty")
    _check_counts(text, path)
    try:
        return json_loads(text)
    except json.JSONDecodeError as e:
        raise InvalidJsonError(
            f"{path}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}"
        ) from None
    except DuplicateKeyError as e:
        raise InvalidJsonError(f"{path}: invalid JSON: {e}") from None
    except RecursionError:
        raise InvalidJsonError(f"{path}: JSON nested too deeply to read") from None
    except ValueError:  # an integer literal past Python's digit limit (4300 by default)
        raise InvalidJsonError(f"{path}: a JSON number has too many digits to read") from None


class DuplicateKeyError(ValueError):
    """A JSON object that gives one key two different values. JSON leaves open which counts
    (RFC 8259, section 4) and Python keeps the last, so such a file is refused rather than read
    one way. The same value twice is read: gpubench writes the context's host_name twice (Google
    Benchmark's and its own)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        # The repeated keys' values alone are written out to compare: a value under a key given
        # once, however large, is not (each level of a nested object would write its whole
        # subtree again).
        counts = Counter(key for key, _ in pairs)
        for key, value in pairs:
            if counts[key] > 1 and not _same_json(obj[key], value):
                raise DuplicateKeyError(f"the key {_shown(key)} appears twice in one object, "
                                        "with different values")
    return obj


def _same_json(a: Any, b: Any) -> bool:
    """Whether two parsed JSON values are written alike: 1, 1.0 and true are three values."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def json_loads(text: str) -> Any:
    """json.loads that refuses an object giving a key two different values (DuplicateKeyError,
    a ValueError)."""
    return json.loads(text, object_pairs_hook=_unique_keys)


def json_counts(text: str) -> tuple[int, int]:
    """The JSON objects and lists in `text`, and its values, counted without parsing it: the
    '{' and '[', and those plus the ',', outside strings (a name may hold '{' and ',')."""
    structure = _JSON_STRING.sub("", text)
    containers = structure.count("{") + structure.count("[")
    return containers, containers + structure.count(",")


def _check_counts(text: str, path: Path) -> None:
    """TooLargeError where `text` holds more JSON objects and lists, or values, than a result
    may (MAX_CONTAINERS, MAX_VALUES): parsing them would take memory out of proportion to its
    size."""
    containers, values = json_counts(text)
    if containers > MAX_CONTAINERS:
        raise TooLargeError(f"{path}: more than {MAX_CONTAINERS} JSON objects and lists, the "
                            "most a result file the scripts read holds")
    if values > MAX_VALUES:
        raise TooLargeError(f"{path}: more than {MAX_VALUES} JSON values, the most a result file "
                            "the scripts read holds")


def _group_runs(path: Path, entries: list[Any],
                facts: dict[str, FamilyFacts]) -> dict[str, Benchmark]:
    medians: dict[str, tuple[dict[str, float], Any]] = {}
    cvs: dict[str, tuple[dict[str, float], int]] = {}
    stddevs: dict[str, dict[str, float]] = {}
    means: dict[str, dict[str, float]] = {}
    iterations: dict[str, list[dict[str, float]]] = {}  # also fixes the order of runs
    seen: set[tuple[str, str]] = set()  # (run, repetition index or aggregate name)
    for index, entry in enumerate(entries):
        where = _check_entry(path, index, entry)
        if entry.get("error_occurred"):
            continue
        # An aggregate's name is run_name + "_" + aggregate_name; run_name ties it to its run.
        run = entry.get("run_name") or entry["name"]
        reps = iterations.setdefault(run, [])
        if entry.get("run_type") != "aggregate":
            _check_repetition(where, seen, run, entry, len(reps))
            reps.append(_numbers(where, entry))
            continue
        aggregate = entry.get("aggregate_name")
        _check_not_seen(where, seen, run, f"{aggregate} aggregate")
        numbers = _numbers(where, entry, ratio=aggregate == "cv")
        if aggregate == "median":
            medians[run] = (numbers, entry.get("repetitions", "?"))
        elif aggregate == "cv":
            count = entry.get("repetitions")
            cvs[run] = (numbers, count if isinstance(count, int) else 0)
        elif aggregate == "stddev":
            stddevs[run] = numbers
        elif aggregate == "mean":
            means[run] = numbers

    benchmarks: dict[str, Benchmark] = {}
    for run, reps in iterations.items():
        if run in medians:
            values, count = medians[run]
            _check_median(f"{path}: benchmark {run!r}", values, reps)
            summary = f"median of {count} repetitions"
        elif reps:
            values = _mean(reps)
            summary = "single run" if len(reps) == 1 else f"mean of {len(reps)} repetitions"
        else:
            continue  # only stddev/cv aggregates: nothing to report
        name = strip_gb_suffixes(run)
        if name in benchmarks:
            raise DuplicateBenchmarkError(
                f"{path}: two runs are named {name!r} once Google Benchmark suffixes are stripped"
            )
        cv, cv_count = cvs.get(run, (None, 0))
        if cv is not None:
            _check_cv_sign(f"{path}: benchmark {run!r}", cv, means.get(run, values))
        benchmarks[name] = Benchmark(name, values, reps, summary, cv, cv_count,
                                     facts.get(family_of(name)), stddevs.get(run))
    return benchmarks


def _check_median(where: str, median: dict[str, float], reps: list[dict[str, float]]) -> None:
    """BadValueError where a median aggregate is not the median of the repetitions beside it
    (but for rounding). Such a file was edited or put together from two runs; which number is
    the measurement the loader cannot tell, so it refuses the file rather than pick one."""
    for key, value in median.items():
        found = [r[key] for r in reps if key in r]
        if not found:
            continue
        median_of = float(np.median(found))
        if not math.isclose(value, median_of, rel_tol=_ROUNDING, abs_tol=_SMALLEST_MAGNITUDE):
            raise BadValueError(f"{where}: its median aggregate of {key.removesuffix('_us')!r} "
                                f"is {value:g}, the median of its {len(found)} repetitions "
                                f"{median_of:g}")


def _check_cv_sign(where: str, cv: dict[str, float], mean: dict[str, float]) -> None:
    """A cv (standard deviation over mean) has its mean's sign: BadValueError for a negative cv
    of values whose mean (the mean aggregate, else the run's value) is not negative."""
    for key, ratio in cv.items():
        if ratio < 0 and mean.get(key, 0) >= 0:
            raise BadValueError(f"{where}: cv of {key.removesuffix('_us')!r} is {ratio:g}, "
                                "below 0 for values whose mean is not")


def declared_facts(path: Path, context: dict[str, Any]) -> dict[str, FamilyFacts]:
    """The context's gpubench_families (an object, or JSON text holding one) by family name;
    empty where the context has none. MalformedResultError for facts that do not read."""
    doc = context.get(FAMILIES_KEY)
    if doc is None:
        return {}
    where = f"{path}: context {FAMILIES_KEY!r}"
    if isinstance(doc, str):
        try:
            doc = json_loads(doc)
        except (ValueError, RecursionError):
            raise MalformedResultError(f"{where} is text that is no JSON object") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("families"), list):
        raise MalformedResultError(f"{where} has no 'families' list")
    if doc.get("schema") != FACTS_SCHEMA:
        raise MalformedResultError(f"{where}: schema {_shown(doc.get('schema'))}, not the "
                                   f"{FACTS_SCHEMA} these scripts read")
    facts: dict[str, FamilyFacts] = {}
    for index, entry in enumerate(doc["families"]):
        family = _family_facts(f"{where}: families[{index}]", entry)
        if family.name in facts:
            raise MalformedResultError(f"{where}: family {family.name!r} appears twice")
        facts[family.name] = family
    return facts


def _family_facts(where: str, entry: Any) -> FamilyFacts:
    if not isinstance(entry, dict):
        raise WrongTypeError(f"{where} is {_kind(entry)}, not an object")
    name, order, grammar = entry.get("name"), entry.get("order", 0), entry.get("grammar", "")
    if not isinstance(name, str) or not name or "/" in name:
        raise MalformedResultError(f"{where}: 'name' is {_shown(name)}, not a name component")
    if not _is_int(order) or not isinstance(grammar, str):
        raise WrongTypeError(f"{where}: 'order' is not an integer or 'grammar' not text")
    argument = entry.get("argument")
    if argument is not None:
        if not isinstance(argument, dict) or not isinstance(argument.get("key"), str) \
                or ":" in argument["key"] or "/" in argument["key"] \
                or argument.get("unit") not in ARGUMENT_UNITS:
            raise MalformedResultError(f"{where}: 'argument' is not null or {{\"key\": text, "
                                       f"\"unit\": {' or '.join(ARGUMENT_UNITS)}}}")
        argument = Argument(argument["key"], argument["unit"])
    figures = entry.get("figures", [])
    if not isinstance(figures, list):
        raise WrongTypeError(f"{where}: 'figures' is {_kind(figures)}, not a list")
    read = [_figure(f"{where}: figures[{i}]", f) for i, f in enumerate(figures)]
    return FamilyFacts(name, order, grammar, argument, tuple(m for m, _ in read), True,
                       tuple(m for m, panel in read if panel))


def _figure(where: str, entry: Any) -> tuple[Metric, bool]:
    """A declared figure and its `panel` (false where the facts predate it)."""
    if not isinstance(entry, dict):
        raise WrongTypeError(f"{where} is {_kind(entry)}, not an object")
    counter, unit, scale, better = (entry.get(k) for k in ("counter", "unit", "scale", "better"))
    if not isinstance(counter, str) or not counter or not isinstance(unit, str):
        raise MalformedResultError(f"{where}: 'counter' and 'unit' must be text")
    if not _is_number(scale) or not _SMALLEST_MAGNITUDE <= scale <= _LARGEST_MAGNITUDE:
        raise BadValueError(f"{where}: 'scale' is {_shown(scale)}, not a number from "
                            f"{_SMALLEST_MAGNITUDE:g} to {_LARGEST_MAGNITUDE:g}")
    if better not in ("higher", "lower"):
        raise MalformedResultError(f"{where}: 'better' is {_shown(better)}, not \"higher\" or "
                                   "\"lower\"")
    panel = entry.get("panel", False)
    if not isinstance(panel, bool):
        raise WrongTypeError(f"{where}: 'panel' is {_kind(panel)}, not true or false")
    # real_time is stored as real_time_us (the loader converts it to µs).
    key = {"real_time": "real_time_us", "cpu_time": "cpu_time_us"}.get(counter, counter)
    return Metric(key, unit, float(scale), better == "higher"), panel


def _check_entry(path: Path, index: int, entry: Any) -> str:
    """Checks the fields the scripts read; returns how messages name the entry."""
    where = f"{path}: benchmarks[{index}]"
    if not isinstance(entry, dict):
        raise MalformedResultError(f"{where} is {_kind(entry)}, not an object")
    if "name" not in entry:
        raise MalformedResultError(f"{where} has no name")
    for key in _STRING_FIELDS:
        if key in entry and not isinstance(entry[key], str):
            raise WrongTypeError(f"{where}: {key!r} is {_kind(entry[key])}, not a string")
    if not entry["name"]:
        raise MalformedResultError(f"{where}: 'name' is empty")
    where = f"{path}: benchmark {entry['name']!r}"
    if "error_occurred" in entry and not isinstance(entry["error_occurred"], bool):
        raise WrongTypeError(f"{where}: 'error_occurred' is {_kind(entry['error_occurred'])}, "
                             "not true or false")
    if entry.get("error_occurred"):
        return where  # a failed run's figures are not read
    if entry.get("run_type", "iteration") not in ("iteration", "aggregate"):
        raise MalformedResultError(f"{where}: unknown run_type {entry['run_type']!r}")
    if entry.get("time_unit", "ns") not in _US_PER_TIME_UNIT:
        raise MalformedResultError(f"{where}: unknown time_unit {entry['time_unit']!r}")
    for key in _BOOKKEEPING.intersection(entry):
        value = entry[key]
        if not _is_int(value) or not 0 <= value <= _LARGEST_COUNT:
            raise WrongTypeError(f"{where}: {key!r} is {_shown(value)}, "
                                 "not a count (an integer from 0 to 2^63-1)")
    for key in _MEASUREMENTS:
        if key in entry and not _is_number(entry[key]):
            raise WrongTypeError(f"{where}: {key!r} is {_kind(entry[key])}, not a number")
    if "real_time" not in entry:
        raise MalformedResultError(f"{where}: no 'real_time'")
    return where


def _check_not_seen(where: str, seen: set[tuple[str, str]], run: str, key: str) -> None:
    if (run, key) in seen:
        raise DuplicateBenchmarkError(f"{where}: {key} appears twice")
    seen.add((run, key))


def _check_repetition(where: str, seen: set[tuple[str, str]], run: str,
                      entry: dict[str, Any], earlier: int) -> None:
    """One repetition of a run appears once: by its repetition_index or, in files without
    one, no more often than the repetition count the run declares."""
    if "repetition_index" in entry:
        _check_not_seen(where, seen, run, f"repetition {entry['repetition_index']}")
    elif earlier >= entry.get("repetitions", 1):
        raise DuplicateBenchmarkError(f"{where} appears more often than its "
                                      f"{entry.get('repetitions', 1)} repetition(s)")


def _numbers(where: str, entry: dict[str, Any], ratio: bool = False) -> dict[str, float]:
    """Numeric measurements of one entry, with real_time/cpu_time converted to µs (or, for a
    `ratio` such as the cv aggregate, only renamed: a ratio has no unit). Each is checked as
    the scripts read it, after the conversion."""
    aggregate = entry.get("aggregate_name") if entry.get("run_type") == "aggregate" else None
    us_per_unit = 1.0 if ratio else _US_PER_TIME_UNIT[entry.get("time_unit", "ns")]
    values = {}
    for key, v in entry.items():
        kind = type(v)  # json.loads makes exactly these types; bool is not a number here
        if kind is float:
            number = v
        elif kind is int and key not in _BOOKKEEPING:
            try:
                number = float(v)
            except OverflowError:
                raise BadValueError(f"{where}: {key!r} is too large for a float") from None
        else:
            continue
        if aggregate == "cv" and not math.isfinite(number):
            continue  # Google Benchmark's cv of a counter whose mean is 0 (host_timed)
        converted = number * us_per_unit if key in TIME_FIELDS else number
        _check_number(where, key, converted, aggregate, written_zero=number == 0)
        values[f"{key}_us" if key in TIME_FIELDS else key] = converted
    return values


def _check_number(where: str, key: str, number: float, aggregate: str | None,
                  written_zero: bool) -> None:
    """BadValueError where `number` (a time in µs) is no value of `key` the scripts can use, in
    a repetition or, where `aggregate` names one, in that aggregate; `written_zero`: the file
    wrote 0, not a number that became 0 in µs."""
    spread = aggregate in _SPREAD_AGGREGATES
    shown = f"{number:g}{' µs' if key in TIME_FIELDS else ''}"
    if not math.isfinite(number):
        raise BadValueError(f"{where}: {key!r} is {shown}, not a finite number")
    if not written_zero and not _SMALLEST_MAGNITUDE <= abs(number) <= _LARGEST_MAGNITUDE:
        raise BadValueError(f"{where}: {key!r} is {shown}, outside {_SMALLEST_MAGNITUDE:g} to "
                            f"{_LARGEST_MAGNITUDE:g} in size, the range of any measurement")
    if key in _POSITIVE and not spread and number <= 0:
        raise BadValueError(f"{where}: {key!r} is {number:g}; a measured time or rate is > 0")
    if aggregate == "stddev" and number < 0:
        raise BadValueError(f"{where}: {key!r} is {number:g}; a standard deviation is >= 0")
    if key == NOISE_PCT and number < 0:
        raise BadValueError(f"{where}: {key!r} is {number:g}; a spread is >= 0")
    if key == KERNEL_SM_CLOCK and not spread and number <= 0:
        raise BadValueError(f"{where}: {key!r} is {number:g}; a clock is > 0")
    if key == HOST_TIMED and not spread and number not in (0, 1):
        raise BadValueError(f"{where}: {key!r} is {number:g}, not 0 or 1")


def _mean(reps: list[dict[str, float]]) -> dict[str, float]:
    if len(reps) == 1:  # a single run, as fleets hold by the thousand: nothing to average
        return dict(reps[0])
    # In the order the file first names them, as a single run's are: a set's order changes with
    # PYTHONHASHSEED, and the first us_per_ counter is a file's figure without facts.
    keys = dict.fromkeys(k for r in reps for k in r)
    return {k: float(np.mean([r[k] for r in reps if k in r])) for k in keys}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _kind(value: Any) -> str:
    """How a message names a JSON value's type."""
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
             int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _shown(value: Any) -> str:
    """A JSON value in a message: short, one line."""
    if _is_int(value) and value.bit_length() > 64:
        return "an integer of more than 64 bits"
    text = repr(value) if isinstance(value, (int, float, str)) else _kind(value)
    return text if len(text) <= 40 else text[:37] + "..."
