"""Results in the formats of continuous-benchmarking services: github-action-benchmark's custom
JSON and the Bencher Metric Format, each benchmark's figure with its spread (cli/export.py
says which fields and why)."""

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gpubench_tools.reading.name_filter import NameFilter
from gpubench_tools.reading.results import Benchmark, Result
from gpubench_tools.writing.outputs import write_output, write_stdout

# Bencher measures by (unit, bigger_is_better); another figure's is named by its unit.
BENCHER_MEASURE = {("GB/s", True): "throughput-gbps", ("µs", False): "latency-us"}


class ExportError(Exception):
    """Nothing valid can be written; str() is the one-line message."""


@dataclass(frozen=True)
class Exported:
    name: str
    unit: str
    bigger_is_better: bool
    value: float
    stddev: float | None  # in `unit`; None for a benchmark run once
    summary: str  # how value and stddev were obtained
    nonnegative: bool  # neither the value nor any repetition is below 0


def exported(bench: Benchmark) -> Exported:
    metric = bench.metric
    reps = bench.repetition_values(metric)
    stddev: float | None = None
    summary = bench.summary_of(metric)
    if reps.size >= 2:
        stddev = float(np.std(reps, ddof=1))
        summary += f"; range: stddev of {reps.size} repetitions"
    elif bench.stddev is not None and metric.key in bench.stddev:
        stddev = bench.stddev[metric.key] * metric.scale
        summary += "; range: Google Benchmark's stddev aggregate"
    # The loader bounds every number, so value and stddev are finite.
    value = bench.value(metric)
    return Exported(bench.name, metric.unit, metric.bigger_is_better, value, stddev, summary,
                    value >= 0 and bool((reps >= 0).all()))


def bencher_measure(unit: str, bigger_is_better: bool) -> str:
    if (unit, bigger_is_better) in BENCHER_MEASURE:
        return BENCHER_MEASURE[(unit, bigger_is_better)]
    slug = "".join(ch for ch in unit.lower() if ch.isascii() and ch.isalnum()) or "value"
    return f"{'higher' if bigger_is_better else 'lower'}-{slug}"


def github_entries(figures: list[Exported], result: Result) -> list[dict[str, Any]]:
    entries = []
    for f in figures:
        entry: dict[str, Any] = {"name": f.name, "unit": f.unit, "value": f.value}
        if f.stddev is not None:
            entry["range"] = f"± {f.stddev:.4g}"
        entry["extra"] = f"{result.describe()}; {f.summary}"
        entries.append(entry)
    return entries


def bencher_document(figures: list[Exported]) -> dict[str, dict[str, dict[str, float]]]:
    doc = {}
    for f in figures:
        metric = {"value": f.value}
        if f.stddev is not None:
            # A time or a rate is never below 0; a negative figure's lower value lies below it.
            lower = f.value - f.stddev
            metric["lower_value"] = max(lower, 0.0) if f.nonnegative else lower
            metric["upper_value"] = f.value + f.stddev
        doc[f.name] = {bencher_measure(f.unit, f.bigger_is_better): metric}
    return doc


def selected(result: Result, args: argparse.Namespace,
             pattern: NameFilter | None) -> list[Benchmark]:
    names = list(result.benchmarks) if pattern is None else pattern.select(result.benchmarks)
    benches = [result.benchmarks[name] for name in names]
    if args.direction is not None:
        benches = [b for b in benches
                   if b.metric.bigger_is_better == (args.direction == "bigger")]
    if not benches:
        what = [f"--filter={args.filter}"] if pattern is not None else []
        what += [f"--direction={args.direction}"] if args.direction else []
        raise ExportError(f"{result.path}: no successful benchmark"
                          + (f" matches {' '.join(what)}" if what else "")
                          + "; a benchmarking service rejects an empty export")
    return benches


def write(text: str, output: Path | None) -> None:
    """Writes to `output` or stdout; a failed write raises OSError naming the file."""
    if output is None:
        write_stdout(text)
    else:
        write_output(output, text)
