"""A result as the toolkit holds it: its context and each benchmark's figures, repetitions,
spread and family facts (result_file.py reads and checks a file into one)."""

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from gpubench_tools.reading.facts import (
    KERNEL_SM_CLOCK,
    PAGEABLE,
    REAL_TIME_US,
    THROTTLE_DROP,
    Argument,
    FamilyFacts,
    Metric,
    NameParts,
    by_family,
    declared_facts,
    family_of,
    inferred_metric,
    split_name,
)
from gpubench_tools.reading.safe_text import ascii_decimal, printable, shorten

# gpubench's own counters about a figure's timing: the relative spread of a repetition's timed
# batches in percent (>= 0), 1 for a figure timed on the host clock, 0 for GPU time, and 1 where
# the declared figure is a host-timed cost over host work timed in the same rounds.
NOISE_PCT, HOST_TIMED, HOST_REFERENCED = "noise_pct", "host_timed", "host_referenced"

# A MAD times this estimates the standard deviation of normally distributed values.
_MAD_TO_SD = 1.4826

# Slots: a fleet holds millions (reading/fleet/compact.py), at a third of the memory a dict each.
@dataclass(frozen=True, slots=True)
class Benchmark:
    name: str  # gpubench name, Google Benchmark suffixes stripped
    values: dict[str, float]  # median aggregate if reported, else mean of the repetitions
    # One per iteration entry, for statistics; none kept of a single run the fleet holds
    # (reading/fleet/compact.py), whose value is its repetition.
    repetitions: Sequence[dict[str, float]]
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
        if len(found) == 1:  # a single run, as a fleet's are by the thousand
            return float(found[0])
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
        """Whether the figure moves with the host, the one rule every subcommand judges by:
        gpubench's host_timed (1 in any repetition), or a name component `pageable` (the CPU
        stages pageable memory whatever clock times the copy; builds before host_timed held
        it wrote nothing, earlier ones 0). None where neither says: a file written before
        host_timed, of no pageable memory. See paced_by_host for a figure over a reference."""
        return self.paced_by_host(self.metric)

    def paced_by_host(self, metric: Metric) -> bool | None:
        """host_paced of `metric`, this benchmark's figure or real time: a declared figure of a
        benchmark that says host_referenced (1 in every repetition) is a host-timed cost over
        host work timed in the same rounds, from which the host's drift cancels, so the host
        does not pace it, even of a copy from pageable memory (copy/.../pageable/sync_paired);
        its real time still moves with the host."""
        if metric.key != REAL_TIME_US.key and self.host_referenced:
            return False
        if PAGEABLE in self.name.split("/"):
            return True
        return self.host_timed

    def over_host_reference(self, metric: Metric) -> bool:
        """Whether `metric` is a host-timed cost over host work timed in the same rounds: the
        host times the benchmark (host_timed) but does not pace this figure (paced_by_host)."""
        return self.paced_by_host(metric) is False and bool(self.host_timed)

    @property
    def host_referenced(self) -> bool:
        """gpubench's host_referenced: 1 in every repetition (all of them over the reference)."""
        found = [r.get(HOST_REFERENCED, 0) for r in self.repetitions]
        if not found:
            found = [self.values.get(HOST_REFERENCED, 0)]
        return all(v == 1 for v in found)

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
        """The benchmarks of each family, grouped once: a subcommand asks for each family's, and a
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
        (a file merged by gpubench-tools merge, as gpubench-tools record records), else 1."""
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
