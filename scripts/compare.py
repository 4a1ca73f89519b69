#!/usr/bin/env python3
"""Compare two gpubench results benchmark by benchmark and fail on a regression.

Each benchmark is judged by its primary figure: GB/s for copy and saxpy (higher is better),
µs per launch for launch, real time in µs otherwise (lower is better). A benchmark regresses
when it got worse by more than --threshold percent and, where both files hold at least two
repetitions, the two-sided Mann-Whitney U test gives p < --alpha.

Exit status: 0 no regression, 1 regression, 2 unusable input.
"""

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path

from gpubench_json import REAL_TIME_US, Benchmark, GpubenchJsonError, Metric, Result, load
from text_table import render

HEADERS = ["benchmark", "baseline", "contender", "unit", "change %", "p", "verdict"]


@dataclass(frozen=True)
class Row:
    name: str
    metric: Metric
    baseline: float
    contender: float
    change_pct: float  # positive: contender better
    p_value: float | None
    p_reachable: bool  # whether p < alpha is possible with this many repetitions
    regression: bool


def change_pct(baseline: float, contender: float, bigger_is_better: bool) -> float:
    """Relative change in percent, signed so that positive is better whatever the direction."""
    if baseline == 0 or not (math.isfinite(baseline) and math.isfinite(contender)):
        return math.nan
    better_by = contender - baseline if bigger_is_better else baseline - contender
    return better_by / abs(baseline) * 100


def compare_benchmark(base: Benchmark, cont: Benchmark, threshold: float, alpha: float) -> Row:
    # Fall back to real time if the files disagree on which counters a benchmark reports.
    metric = base.metric if base.metric == cont.metric else REAL_TIME_US
    b_reps, c_reps = base.repetition_values(metric), cont.repetition_values(metric)
    p_value, p_reachable = None, True
    if len(b_reps) >= 2 and len(c_reps) >= 2:
        # Imported here: scipy.stats is most of the start-up time, and only repetitions need it.
        from scipy.stats import mannwhitneyu

        p_value = float(mannwhitneyu(b_reps, c_reps, alternative="two-sided").pvalue)
        # Smallest exact two-sided p: the samples fully separated.
        p_reachable = 2 / math.comb(len(b_reps) + len(c_reps), len(b_reps)) < alpha
    change = change_pct(base.value(metric), cont.value(metric), metric.bigger_is_better)
    significant = p_value is None or p_value < alpha
    return Row(base.name, metric, base.value(metric), cont.value(metric), change, p_value,
               p_reachable, change < -threshold and significant)


def compare(base: Result, cont: Result, threshold: float, alpha: float) -> list[Row]:
    return [
        compare_benchmark(bench, cont.benchmarks[name], threshold, alpha)
        for name, bench in base.benchmarks.items()
        if name in cont.benchmarks
    ]


def header_lines(base: Result, cont: Result, threshold: float, alpha: float) -> list[str]:
    lines = [f"baseline:  {base.path} ({base.describe()})",
             f"contender: {cont.path} ({cont.describe()})"]
    if (base.gpu_name, base.driver_version) != (cont.gpu_name, cont.driver_version):
        lines.append(f"GPU/driver comparison, not a regression check: {base.describe()} "
                     f"vs {cont.describe()}.")
    lines.append(f"change %: positive = contender better, negative = worse (higher GB/s, "
                 f"lower µs is better); regression = worse than -{threshold:g}% "
                 f"with p < {alpha:g} where p exists.")
    return lines


def footnotes(base: Result, cont: Result, rows: list[Row], alpha: float) -> list[str]:
    notes = []
    aggregates_only = [str(r.path) for r in (base, cont) if r.aggregates_only]
    if aggregates_only:
        verb = "holds" if len(aggregates_only) == 1 else "hold"
        notes.append(f"No p-values: {' and '.join(aggregates_only)} {verb} only aggregates "
                     "(--benchmark_report_aggregates_only=true), so there are no repetitions "
                     "to test; the threshold alone decides.")
    elif any(r.p_value is None for r in rows):
        notes.append("Blank p: fewer than 2 repetitions in a file "
                     "(run with --benchmark_repetitions=5); the threshold alone decides there.")
    unreachable = sum(not r.p_reachable for r in rows)
    if unreachable:
        notes.append(f"{unreachable} benchmark(s) have too few repetitions for p < {alpha:g} "
                     "to be possible, so they cannot fail; use more repetitions.")
    only_base = len(base.benchmarks.keys() - cont.benchmarks.keys())
    only_cont = len(cont.benchmarks.keys() - base.benchmarks.keys())
    if only_base or only_cont:
        notes.append(f"Not compared: {only_base} benchmark(s) only in the baseline, "
                     f"{only_cont} only in the contender.")
    regressions = sum(r.regression for r in rows)
    notes.append(f"{'FAIL' if regressions else 'OK'}: {regressions} of {len(rows)} "
                 "benchmark(s) regressed.")
    return notes


def format_value(value: float) -> str:
    return f"{value:.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def table_row(row: Row) -> list[str]:
    return [
        row.name,
        format_value(row.baseline),
        format_value(row.contender),
        row.metric.unit,
        f"{row.change_pct:+.2f}",
        "" if row.p_value is None else f"{row.p_value:.3g}",
        "REGRESSION" if row.regression else "",
    ]


def report(base: Result, cont: Result, rows: list[Row], args: argparse.Namespace) -> str:
    before = header_lines(base, cont, args.threshold, args.alpha)
    table = render(HEADERS, [table_row(r) for r in rows], markdown=args.markdown)
    after = footnotes(base, cont, rows, args.alpha)
    if args.markdown:  # paragraphs need blank lines between them
        return "\n\n".join(["## gpubench comparison", *before, table, *after]) + "\n"
    return "\n".join([*before, "", table, "", *after]) + "\n"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("baseline", type=Path, metavar="BASELINE.json")
    parser.add_argument("contender", type=Path, metavar="CONTENDER.json")
    parser.add_argument("--threshold", type=float, default=5.0, metavar="PCT",
                        help="largest tolerated worsening in percent (default 5)")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="significance level of the Mann-Whitney U test (default 0.05)")
    parser.add_argument("--markdown", action="store_true",
                        help="GitHub markdown, e.g. for $GITHUB_STEP_SUMMARY")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        base, cont = load(args.baseline), load(args.contender)
    except GpubenchJsonError as e:
        print(f"compare.py: {e}", file=sys.stderr)
        return 2
    rows = compare(base, cont, args.threshold, args.alpha)
    if not rows:
        print(f"compare.py: no benchmark in common between {base.path} and {cont.path}",
              file=sys.stderr)
        return 2
    sys.stdout.write(report(base, cont, rows, args))
    return 1 if any(r.regression for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
