"""What the fleet keeps of a GPU's result: the figures and counters its judgement and report read.

A result of gpubench's default suite is some 650 benchmarks of 15 numbers or more each, and
reading it makes Python objects of 1.2 MB; a fleet of 4,096 GPUs held so takes 5 GB. Judging a
GPU needs, per benchmark, its figure (the first of its family's figures it holds: Benchmark.metric,
which the group's facts are agreed by), its GB/s where it has one (floors), gpubench's noise_pct,
host_timed and the kernels' SM clock, and whether its clocks were held down (Benchmark.throttled):
the compact benchmark keeps those and the repetitions' own counters, so each property the fleet
reads gives what it gave of the whole result. The result's context stays whole (health records,
grouping, the report's hints); its benchmarks are the GPUs'. Names and summaries are interned:
thousands of GPUs name the same benchmarks.
"""

import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from gpubench_tools.reading.facts import GBPS, KERNEL_SM_CLOCK
from gpubench_tools.reading.results import (
    HOST_REFERENCED,
    HOST_TIMED,
    NOISE_PCT,
    Benchmark,
    Result,
)

if TYPE_CHECKING:  # records.py makes its Gpus compact with this module
    from gpubench_tools.reading.fleet.records import Gpu

# The counters of a repetition the fleet reads (Benchmark.noise_pct, host_timed,
# host_referenced, kernel_sm_clock_mhz), and those Benchmark.throttled reads, kept where they say
# it was.
COUNTERS = (NOISE_PCT, HOST_TIMED, HOST_REFERENCED, KERNEL_SM_CLOCK)
THROTTLE_COUNTERS = ("clock_limited_ms", "sm_clock_start_mhz", "sm_clock_end_mhz")


def _kept(numbers: dict[str, float], keys: Sequence[str],
          shared: dict[float, float]) -> dict[str, float]:
    """The numbers of `keys`, the counters' values one object per value (`shared`): a GPU's
    host_timed and SM clock take few values over its benchmarks."""
    return {sys.intern(key): shared.setdefault(numbers[key], numbers[key]) if key in COUNTERS
            else numbers[key] for key in keys if key in numbers}


def compact_benchmark(bench: Benchmark, shared: dict[float, float]) -> Benchmark:
    """The benchmark with the figures and counters the fleet reads (the module's docstring). A
    single run keeps no repetition: its value is its repetition, and each property reads the
    value where there is none."""
    figures = [bench.metric.key] + ([GBPS.key] if GBPS.key in bench.values else [])
    counters = COUNTERS + (THROTTLE_COUNTERS if bench.throttled else ())
    values = _kept(bench.values, [*dict.fromkeys(figures), *counters], shared)
    single = len(bench.repetitions) == 1 and bench.repetitions[0] == bench.values
    repetitions = () if single else [_kept(r, counters, shared) for r in bench.repetitions]
    return Benchmark(sys.intern(bench.name), values, repetitions, sys.intern(bench.summary),
                     facts=bench.facts)


def compact_results(gpus: Sequence["Gpu"], result: Result) -> list["Gpu"]:
    """The GPUs of one result (reading/fleet/records.Gpu), each with compact benchmarks, sharing
    one Result of the context alone."""
    kept = Result(result.path, result.context, {})
    shared: dict[float, float] = {}
    return [replace(gpu, result=kept, benchmarks={
        sys.intern(name): compact_benchmark(bench, shared)
        for name, bench in gpu.benchmarks.items()}) for gpu in gpus]
