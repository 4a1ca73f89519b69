"""A result as the HTML pages draw it: its benchmarks split into curves and single figures.

A benchmark name is read by reading/results.py (Benchmark.parts, by the rules of
docs/family-facts.md): family, series, argument and device; the argument's unit and key come
from the family's facts (Benchmark.facts; a file without them is read in bytes, and the axis
says so). A family, its figure, the figure's unit and its direction of better come from
reading/results.py too (Benchmark.family and Benchmark.metric); nothing here knows a family by name.

`select_device` turns a file measured on several GPUs into the runs of one of them, with the
device suffix taken off its names, so that it compares with a single-GPU file.
"""

from dataclasses import dataclass, replace
from typing import Any

from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.reading.facts import REAL_TIME_US, Metric, pair_of
from gpubench_tools.reading.results import Benchmark, Result
from gpubench_tools.reading.safe_text import one_line

@dataclass(frozen=True)
class Argument:
    value: int
    unit: str  # "bytes" or "elements"
    key: str  # "" for a bare number, "params" for params:256
    declared: bool  # the unit is the family's declared one, not the inferred bytes


@dataclass(frozen=True)
class NameParts:
    family: str
    series: str  # the name without family, argument and device
    argument: Argument | None
    device: int | None


@dataclass(frozen=True)
class Point:
    """One benchmark of a curve: its representative figure and the spread of its repetitions."""
    benchmark: str
    argument: int
    value: float
    low: float  # the smallest repetition, or `value` without repetitions
    high: float
    summary: str  # how `value` was obtained ("median of 5 repetitions")


@dataclass(frozen=True)
class Curve:
    family: str
    series: str
    metric: Metric
    argument: Argument  # the first point's: its unit and key name the axis
    points: list[Point]  # by argument


@dataclass(frozen=True)
class Single:
    """A benchmark without an argument: one figure, drawn as a dot with its spread."""
    family: str
    benchmark: str
    metric: Metric
    value: float
    low: float
    high: float
    summary: str


def name_parts(bench: Benchmark) -> NameParts:
    """The benchmark's name as reading/results.py reads it, its argument with the unit and key its
    family's facts declare (bytes where the file declares none)."""
    parts = bench.parts
    argument = None
    if parts.argument is not None:
        declared = bench.facts is not None and bench.facts.argument is not None
        unit = bench.facts.argument.unit if declared else "bytes"
        argument = Argument(parts.argument, unit, parts.argument_key, declared)
    return NameParts(parts.family, parts.series, argument, parts.device)


def devices_named(result: Result) -> list[int]:
    return sorted({d for b in result.benchmarks.values() if (d := b.parts.device) is not None})


def select_device(result: Result, device: int | None) -> Result:
    """The benchmarks of one device, named without their `device:N`, with those that name no
    device; the context's first-device keys describe that device. A file that names one
    device or none needs no `device`; GpubenchJsonError for one that names several without
    it, that does not hold the device asked for, or that names a benchmark both with and
    without that device (one would replace the other, whichever the file lists later)."""
    named = devices_named(result)
    if not named:
        return result
    if device is None:
        if len(named) > 1:
            raise GpubenchJsonError(
                f"{result.path}: benchmarks on devices {', '.join(map(str, named))}: choose "
                "one with --device")
        device = named[0]
    if device not in named:
        raise GpubenchJsonError(f"{result.path}: no benchmark on device {device} (it has "
                                f"{', '.join(map(str, named))})")
    kept: dict[str, Benchmark] = {}
    for name, bench in result.benchmarks.items():
        parts = bench.parts
        if parts.device is None:
            kept[name] = bench
        elif parts.device == device:
            bare = name.rsplit("/", 1)[0]
            if bare in result.benchmarks:
                raise GpubenchJsonError(f"{result.path}: {one_line(bare, 200)} is named both "
                                        f"with and without /device:{device}")
            kept[bare] = replace(bench, name=bare)
    return Result(result.path, device_context(result.context, device), kept)


def device_context(context: dict[str, Any], device: int) -> dict[str, Any]:
    """The context as if `device` were the first measured: gpubench writes per-device keys
    (`device_N`: name, UUID, PCI bus; `device_N_health_before/after`) beside the first
    device's."""
    if str(context.get("gpu_ordinal")) == str(device):
        return context
    changed = dict(context, gpu_ordinal=str(device))
    for suffix in ("before", "after"):
        key = f"device_{device}_health_{suffix}"
        changed[f"gpu_health_{suffix}"] = context.get(key, "(not recorded for this device)")
    description = context.get(f"device_{device}")
    if isinstance(description, str) and description.count(", ") == 2:
        changed["gpu_name"], changed["gpu_uuid"], changed["gpu_pci_bus_id"] = \
            description.split(", ")
    return changed


def spread(bench: Benchmark, metric: Metric) -> tuple[float, float]:
    """The smallest and largest repetition of a figure; the figure itself without two."""
    values = bench.repetition_values(metric)
    if values.size < 2:
        value = bench.value(metric)
        return value, value
    return float(values.min()), float(values.max())


def series_metric(benches: list[Benchmark]) -> Metric:
    """The figure the benchmarks of one series share; real time where they disagree (as
    gpubench-tools compare does for one benchmark read differently by two files)."""
    metrics = {b.metric for b in benches}
    return metrics.pop() if len(metrics) == 1 else REAL_TIME_US


def curves_and_singles(result: Result) -> tuple[list[Curve], list[Single]]:
    """The result's benchmarks: a curve per series whose names carry an argument, in file
    order, and a single figure per benchmark without one."""
    grouped: dict[tuple[str, str], list[tuple[Argument, Benchmark]]] = {}
    singles: list[Single] = []
    for name, bench in result.benchmarks.items():
        parts = name_parts(bench)
        if parts.argument is None:
            low, high = spread(bench, bench.metric)
            singles.append(Single(parts.family, name, bench.metric, bench.value(), low, high,
                                  bench.summary_of()))
            continue
        grouped.setdefault((parts.family, parts.series), []).append((parts.argument, bench))
    curves = []
    for (family, series), members in grouped.items():
        metric = series_metric([b for _, b in members])
        points = sorted((Point(b.name, a.value, b.value(metric), *spread(b, metric),
                               b.summary_of(metric))
                         for a, b in members), key=lambda p: p.argument)
        curves.append(Curve(family, series, metric, members[0][0], points))
    return curves, singles


@dataclass(frozen=True)
class PairMatrix:
    """One series of GPU pairs (its pair component as `*`) at the largest argument every pair
    was measured at: (source, destination) -> the figure there."""
    group: str
    argument: int
    curve: Curve  # one of its curves: the figure's unit, the argument's unit
    values: dict[tuple[int, int], float]


def pair_matrices(curves: list[Curve], family: str) -> list[PairMatrix]:
    """The family's curves whose series name an ordered pair of GPUs, a matrix per series with
    the pair taken out, the first curve of each pair kept; a series whose pairs share no
    argument has none."""
    groups: dict[str, dict[tuple[int, int], Curve]] = {}
    for curve in curves:
        if curve.family == family and (found := pair_of(curve.series)) is not None:
            group, source, destination = found
            groups.setdefault(group, {}).setdefault((source, destination), curve)
    matrices = []
    for group, pairs in groups.items():
        common = set.intersection(*({p.argument for p in c.points} for c in pairs.values()))
        if common:
            largest = max(common)
            values = {pair: next(p.value for p in c.points if p.argument == largest)
                      for pair, c in pairs.items()}
            matrices.append(PairMatrix(group, largest, next(iter(pairs.values())), values))
    return matrices
