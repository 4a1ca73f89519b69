"""Run-to-run stability: each benchmark's coefficient of variation against the limit gpubench
holds its large GPU-timed cases to, none for a host-paced figure (cli/stability.py says why)."""

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
