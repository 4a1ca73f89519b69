"""When no verdict can be reached, whatever the change: the two files take a benchmark's figure
or its clock otherwise, a spread is no spread of a measurement, or the resolution is too wide to
tell a change. compare_benchmark calls such a benchmark UNRESOLVED, never SAME: "cannot tell"
is an answer of its own (nvbench's compare says AMBG)."""

from gpubench_tools.reading.facts import Metric, figure_difference
from gpubench_tools.reading.results import Benchmark

# The widest resolution a verdict can rest on, in %: 10×. A benchmark that cannot tell its figure
# from one ten times off tells nothing a check can use; the widest resolution of a committed
# recording is 4.03× (launch/graph_nodes/replay_submit at 2048 nodes against
# results/h200/ci_baseline.json, whose 19 runs lie that far apart).
RESOLUTION_CEILING_PCT = 900.0
# The widest spread of one repetition a verdict can rest on, in %: a standard deviation as large
# as the figure is no measurement of a time or a rate, which is positive (the widest of a
# committed recording is 56%, graph replay at 2048 nodes on results/h200/verdicts/splits/).
SPREAD_CEILING_PCT = 100.0


def timing_text(host_paced: bool) -> str:
    return "host-timed" if host_paced else "GPU-timed"


def incomparable(base: Benchmark, cont: Benchmark, metric: Metric) -> str | None:
    """Why the two files' benchmark is no one figure: they take its counter for different
    figures (unit, scale or direction), or one says the host paces `metric`, the figure judged,
    and the other says the GPU does or says nothing (a file written before gpubench recorded
    host_timed): the host's wider floor would rest on one file's word. None where they agree, or
    where no file says the host paces it (the GPU's floor, the tighter, then applies)."""
    if difference := figure_difference(base.metric, cont.metric):
        return f"incomparable: the files take its figure otherwise ({difference})"
    sides = {"BASE": base, "NEW": cont}
    paced = {side: bench.paced_by_host(metric) for side, bench in sides.items()}
    if True in paced.values() and set(paced.values()) != {True}:
        return "incomparable: " + ", ".join(
            f"{side} {timing_said(bench, metric)}" for side, bench in sides.items())
    return None


def timing_said(bench: Benchmark, metric: Metric) -> str:
    """How a file says `metric` was timed, for a benchmark the files take otherwise."""
    paced = bench.paced_by_host(metric)
    if paced is None:
        return "does not say how it was timed"
    return ("host-timed over a host reference" if bench.over_host_reference(metric)
            else timing_text(paced))


def unresolved_why(base_spread_pct: float | None, new_spread_pct: float | None,
                   resolution_pct: float) -> str | None:
    """Why a benchmark's change cannot be judged: a spread of one repetition (in %; None where
    a side has none) that is no spread (negative, not a number, or past SPREAD_CEILING_PCT), or
    a resolution past RESOLUTION_CEILING_PCT; None where it can."""
    for side, spread in (("BASE", base_spread_pct), ("NEW", new_spread_pct)):
        if spread is not None and not 0 <= spread <= SPREAD_CEILING_PCT:
            return (f"{side}'s spread of {spread:.3g}% is no spread of a measurement (not "
                    f"within 0 to {SPREAD_CEILING_PCT:g}%)")
    if not resolution_pct <= RESOLUTION_CEILING_PCT:
        return (f"its resolution {1 + resolution_pct / 100:.4g}× is past the "
                f"{1 + RESOLUTION_CEILING_PCT / 100:g}× ceiling: no change within it can be told")
    return None
