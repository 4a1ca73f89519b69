"""What a benchmark name means: the families' facts (docs/family-facts.md), declared in a
result's context or inferred, and a name read as family, series, argument and device."""

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from gpubench_tools.reading.errors import BadValueError, MalformedResultError, WrongTypeError
from gpubench_tools.reading.json_values import (
    LARGEST_MAGNITUDE,
    SMALLEST_MAGNITUDE,
    is_int,
    is_number,
    json_loads,
    kind_of,
    shown,
)
from gpubench_tools.reading.safe_text import ascii_decimal


@dataclass(frozen=True)
class Metric:
    key: str  # a key of Benchmark.values
    unit: str
    scale: float  # multiplies the stored value to give `unit`
    bigger_is_better: bool

# What a figure is follows from its unit and its counter, whatever a file claims: a time (or a
# time per something: µs per launch) is better lower, a rate (anything per second) higher.
_TIME_WORDS = frozenset({
    "ps", "ns", "us", "µs", "μs", "ms", "s", "sec", "secs", "second", "seconds", "min", "mins",
    "minute", "minutes", "h", "hr", "hrs", "hour", "hours", "picoseconds", "nanoseconds",
    "microseconds", "milliseconds", "cycle", "cycles", "clocks"})
# Rates written as one word: per second by their definition.
_RATE_WORDS = frozenset({"hz", "khz", "mhz", "ghz", "flops", "kflops", "mflops", "gflops",
                         "tflops", "pflops", "iops", "fps", "bps", "kbps", "mbps", "gbps", "tbps"})
_TIME_COUNTER = re.compile(r"(ps|ns|us|ms|s)_per_.*|.*_(ps|ns|us|ms|s)")
_RATE_COUNTER = re.compile(r".*_per_(second|sec|s|ms|us|ns|ps)")


def _first_word(text: str) -> str:
    words = text.strip().lower().split()
    return words[0] if words else ""


def unit_bigger_is_better(unit: str) -> bool | None:
    """True for a rate (GB/s, /s, launches per second, MHz, GFLOPS), False for a time (ns, µs,
    s, clock cycles, µs/launch), None for a unit that says neither (J/GB, % of ceiling)."""
    numerator, *per = re.split(r"/| per ", unit.strip().lower())
    if any(_first_word(p) in _TIME_WORDS for p in per) or _first_word(numerator) in _RATE_WORDS:
        return True
    return False if _first_word(numerator) in _TIME_WORDS else None


def counter_bigger_is_better(key: str) -> bool | None:
    """What a counter's name says it is: a rate (bytes_per_second), a time (real_time_us,
    us_per_copy, gap_ns), or neither (None)."""
    if _RATE_COUNTER.fullmatch(key):
        return True
    return False if _TIME_COUNTER.fullmatch(key) else None


def metric_text(metric: Metric) -> str:
    """'us_per_copy in µs (scale 1), lower better': what a figure is, as a refusal names it."""
    return (f"{metric.key} in {metric.unit} (scale {metric.scale:g}), "
            f"{'higher' if metric.bigger_is_better else 'lower'} better")


def figure_difference(first: Metric, second: Metric) -> str | None:
    """Where two files take one counter for different figures (another unit, scale or
    direction), both as metric_text names them; None where they agree or are two counters."""
    if first.key != second.key or first == second:
        return None
    return f"{metric_text(first)} against {metric_text(second)}"

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
PAGEABLE = "pageable"

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

# A series component naming an ordered pair of GPUs, source to destination: `0to1`.
DEVICE_PAIR = re.compile(r"([0-9]{1,4})to([0-9]{1,4})")

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

def pair_of(series: str) -> tuple[str, int, int] | None:
    """(the series with its pair component as `*`, source, destination) for a series that
    names an ordered pair of GPUs (`ce/read/0to1`), else None."""
    parts = series.split("/")
    for index, part in enumerate(parts):
        if match := DEVICE_PAIR.fullmatch(part):
            group = "/".join([*parts[:index], "*", *parts[index + 1:]])
            return group, int(match[1]), int(match[2])
    return None

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
        raise MalformedResultError(f"{where}: schema {shown(doc.get('schema'))}, not the "
                                   f"{FACTS_SCHEMA} these scripts read")
    facts: dict[str, FamilyFacts] = {}
    for index, entry in enumerate(doc["families"]):
        family = _family_facts(f"{where}: families[{index}]", entry)
        if family.name in facts:
            raise MalformedResultError(f"{where}: family {family.name!r} appears twice")
        facts[family.name] = family
    return facts

def facts_difference(first: FamilyFacts | None, second: FamilyFacts | None) -> str | None:
    """What differs between two files' declared facts of one family (None: not declared), in
    a few words, the first figure that differs named; None where they are the same."""
    if first == second:
        return None
    if first is None or second is None:
        return f"declared in {'the second' if first is None else 'the first'} file only"
    for a, b in zip(first.figures, second.figures):
        if a != b:
            return f"figure {metric_text(a)} against {metric_text(b)}"
    fields = ("figures", "panels", "argument", "grammar", "order")
    return "its " + next((f for f in fields if getattr(first, f) != getattr(second, f)), "facts")


def _family_facts(where: str, entry: Any) -> FamilyFacts:
    if not isinstance(entry, dict):
        raise WrongTypeError(f"{where} is {kind_of(entry)}, not an object")
    name, order, grammar = entry.get("name"), entry.get("order", 0), entry.get("grammar", "")
    if not isinstance(name, str) or not name or "/" in name:
        raise MalformedResultError(f"{where}: 'name' is {shown(name)}, not a name component")
    if not is_int(order) or not isinstance(grammar, str):
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
        raise WrongTypeError(f"{where}: 'figures' is {kind_of(figures)}, not a list")
    read = [_figure(f"{where}: figures[{i}]", f) for i, f in enumerate(figures)]
    return FamilyFacts(name, order, grammar, argument, tuple(m for m, _ in read), True,
                       tuple(m for m, panel in read if panel))

def _figure(where: str, entry: Any) -> tuple[Metric, bool]:
    """A declared figure and its `panel` (false where the facts predate it)."""
    if not isinstance(entry, dict):
        raise WrongTypeError(f"{where} is {kind_of(entry)}, not an object")
    counter, unit, scale, better = (entry.get(k) for k in ("counter", "unit", "scale", "better"))
    if not isinstance(counter, str) or not counter or not isinstance(unit, str):
        raise MalformedResultError(f"{where}: 'counter' and 'unit' must be text")
    if not is_number(scale) or not SMALLEST_MAGNITUDE <= scale <= LARGEST_MAGNITUDE:
        raise BadValueError(f"{where}: 'scale' is {shown(scale)}, not a number from "
                            f"{SMALLEST_MAGNITUDE:g} to {LARGEST_MAGNITUDE:g}")
    if better not in ("higher", "lower"):
        raise MalformedResultError(f"{where}: 'better' is {shown(better)}, not \"higher\" or "
                                   "\"lower\"")
    panel = entry.get("panel", False)
    if not isinstance(panel, bool):
        raise WrongTypeError(f"{where}: 'panel' is {kind_of(panel)}, not true or false")
    # real_time is stored as real_time_us (the loader converts it to µs).
    key = {"real_time": "real_time_us", "cpu_time": "cpu_time_us"}.get(counter, counter)
    metric = Metric(key, unit, float(scale), better == "higher")
    if problem := _contradiction(metric):
        raise MalformedResultError(f"{where}: {problem}")
    return metric, panel


def _contradiction(metric: Metric) -> str | None:
    """How a declared figure contradicts what its counter and its unit say it is; None where it
    does not."""
    kinds = {True: "a rate, better higher", False: "a time, better lower"}
    by_counter = counter_bigger_is_better(metric.key)
    by_unit = unit_bigger_is_better(metric.unit)
    counter, unit = f"counter {shown(metric.key)}", f"unit {shown(metric.unit)}"
    if None not in (by_counter, by_unit) and by_counter != by_unit:
        return f"{counter} is {kinds[by_counter]}, but its {unit} is {kinds[by_unit]}"
    for said, what in ((by_unit, f"its {unit}"), (by_counter, "its name")):
        if said is not None and said != metric.bigger_is_better:
            better = "higher" if metric.bigger_is_better else "lower"
            return f"{counter} is declared better \"{better}\", but {what} makes it {kinds[said]}"
    return None
