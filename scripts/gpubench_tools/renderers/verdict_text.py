"""What every output of a comparison says first and last: its verdict line, and the rule its
verdicts follow (comparison_text, report.md and the HTML report state them alike)."""

from gpubench_tools.models.comparison import (
    FASTER,
    SAME,
    SLOWER,
    UNRESOLVED,
    Comparison,
    Rules,
)
from gpubench_tools.models.unresolved import RESOLUTION_CEILING_PCT, SPREAD_CEILING_PCT


def tally(comparison: Comparison) -> str:
    """'0 FASTER, 1 SLOWER, 11 SAME' and, where any, ', 1 UNRESOLVED'."""
    counts = {v: sum(r.verdict == v for r in comparison.rows)
              for v in (FASTER, SLOWER, SAME, UNRESOLVED)}
    return ", ".join(f"{n} {v}" for v, n in counts.items() if n or v != UNRESOLVED)


def verdict_line(comparison: Comparison) -> str:
    """'FAIL: 0 of 12 benchmark(s) regressed, 1 unresolved (...).': a regression check fails on
    a SLOWER benchmark, and on an UNRESOLVED one unless --accept-unresolved accepts it."""
    c = comparison
    if not c.regression_check:
        return f"REPORT: {len(c.rows)} benchmark(s) compared: {tally(c)}."
    unresolved = ""
    if c.unresolved:
        unresolved = f", {len(c.unresolved)} unresolved" + (
            " (accepted: --accept-unresolved)" if c.accept_unresolved else "")
    return (f"{'FAIL' if c.exit_status else 'OK'}: {len(c.regressions)} of {len(c.rows)} "
            f"benchmark(s) regressed{unresolved} ({tally(c)}).")


def rule_text(rules: Rules, unresolved: bool = False) -> str:
    """The rule, and where a benchmark is `unresolved`, when no verdict can be reached."""
    return (f"Verdicts: FASTER or SLOWER when the change passes the benchmark's resolution, "
            f"the largest of {rules.threshold:g}% ({rules.host_threshold:g}% for a host-timed "
            f"figure), {rules.sigmas:g} × the combined spread of both sides' medians and the "
            + ("farthest any BASE run lies from BASE's median" if not rules.reach_chance else
               "BASE run, nearest BASE's median, that a median of as many runs of BASE's build "
               f"as NEW's passes with a chance of {rules.reach_chance:g} or less")
            + ", and, where "
            f"both sides hold repetitions, the Mann-Whitney U test gives p < {rules.alpha:g}; "
            "SAME otherwise"
            + (f"; UNRESOLVED where the resolution passes {1 + RESOLUTION_CEILING_PCT / 100:g}×, "
               f"a spread of one repetition {SPREAD_CEILING_PCT:g}%, or the files take the "
               "figure or its clock otherwise" if unresolved else "")
            + ". Each figure's family says which way is better.")
