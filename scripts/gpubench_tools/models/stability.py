"""Run-to-run stability of a gpubench result with repetitions.

For every benchmark with two or more repetitions: the coefficient of variation (sample standard
deviation over mean) of its figure (as its family's facts say), against the limit gpubench holds
its large GPU-timed cases to: under 1% where the case's argument is 64 MiB or more (bytes) or
2^24 elements or more. A host-paced figure (Benchmark.host_paced: timed on the host clock, or
through pageable memory) has no limit: it moves with the host's speed, which on a shared machine
varies by 10% and more. In files written before host_timed every other such figure is held to
the limit. A figure whose mean is negative (a family's own counter may be) has a negative CV,
judged by its size; one whose mean is 0 has no relative spread, so no CV and no verdict.
Exit 1 if any benchmark is over its limit, 2 on bad input or bad usage.
"""

import math

from gpubench_tools.reading.facts import FamilyFacts
from gpubench_tools.reading.results import Benchmark

SCRIPT = "gpubench-tools stability"
# The smallest argument held to the limit, by the argument's unit.
LIMITED_FROM = {"bytes": 64 << 20, "elements": 1 << 24}


def limit_pct(bench: Benchmark, families: dict[str, FamilyFacts]) -> float | None:
    """The CV limit for a benchmark, in percent, or None where gpubench sets none."""
    argument = bench.parts.argument
    facts = families.get(bench.family)
    if bench.host_paced or argument is None or facts is None or facts.argument is None:
        return None
    return 1.0 if argument >= LIMITED_FROM[facts.argument.unit] else None


def verdict(cv: float, limit: float | None) -> str:
    """"ok" or "OVER" for a CV in percent against its limit, "-" where there is none to judge:
    no limit, or a figure whose mean is 0 (a NaN CV). A negative CV is that of a negative mean;
    its size is the relative spread."""
    if limit is None or math.isnan(cv):
        return "-"
    return "ok" if abs(cv) < limit else "OVER"


def clock(bench: Benchmark) -> str:
    return {None: "-", True: "host", False: "GPU"}[bench.host_paced]
