#!/usr/bin/env python3
"""Compare two gpubench results: a regression check, or a comparison of GPUs, drivers or CUDA.

Each benchmark is judged by its primary figure: GB/s for copy and saxpy (higher is better),
µs per launch for launch, real time in µs otherwise (lower is better). The ratio says how many
times faster or slower NEW is than BASE. A benchmark is FASTER or SLOWER when its figure moved
by more than --threshold percent and, where both files hold at least two repetitions, the
two-sided Mann-Whitney U test on the repetitions gives p < --alpha; otherwise it is SAME. Where
a file has no repetitions (one run, or --benchmark_report_aggregates_only=true) the verdict
rests on the threshold alone.

When both files come from the same GPU, driver and CUDA runtime (context gpu_name,
driver_version, cuda_runtime_version) this is a regression check: exit 1 if any benchmark is
SLOWER. When they differ, or with --report, it is a comparison report: exit 0.

Exit status: 0 no regression (or a report), 1 regression, 2 unusable input or bad usage.
"""

import argparse
import math
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from gpubench_json import (REAL_TIME_US, Benchmark, GpubenchJsonError, Metric,
                           OneLineArgumentParser, Result, load, open_unit_interval,
                           positive_finite, script_error, write_stdout)
from text_table import render

SCRIPT = "compare.py"
# Equal in a regression check; a difference in any makes the run a comparison report.
IDENTITY_KEYS = ("gpu_name", "driver_version", "cuda_runtime_version")
# Shown first among the context differences: what a reader looks for.
LEADING_CONTEXT_KEYS = (*IDENTITY_KEYS, "driver_cuda_version", "pcie_link", "gpubench_version",
                        "gpu_state_before", "gpu_state_after")
SAME, FASTER, SLOWER = "SAME", "FASTER", "SLOWER"


@dataclass(frozen=True)
class Row:
    name: str
    metric: Metric
    baseline: float
    contender: float
    ratio: float  # how many times better the contender is: > 1 faster, < 1 slower
    base_cv: tuple[float, int] | None  # (CV %, repetitions) of each side
    cont_cv: tuple[float, int] | None
    p_value: float | None  # Mann-Whitney U, where both sides have repetitions
    p_reachable: bool  # whether p < alpha is possible with this many repetitions
    verdict: str

    @property
    def family(self) -> str:
        return self.name.split("/", 1)[0]

    @property
    def change_pct(self) -> float:
        """Relative change of the figure in percent, signed so that positive is better."""
        return change_pct(self.baseline, self.contender, self.metric.bigger_is_better)


@dataclass(frozen=True)
class FamilySummary:
    family: str
    geomean_ratio: float
    counts: dict[str, int]  # by verdict

    @property
    def compared(self) -> int:
        return sum(self.counts.values())


@dataclass(frozen=True)
class Comparison:
    base: Result
    cont: Result
    rows: list[Row]  # sorted by family, variant and size
    threshold: float
    alpha: float
    regression_check: bool
    context_differences: list[tuple[str, str, str]]  # key, base value, contender value
    only_base: list[str]
    only_cont: list[str]

    @property
    def regressions(self) -> list[Row]:
        return [r for r in self.rows if r.verdict == SLOWER] if self.regression_check else []

    @property
    def exit_status(self) -> int:
        return 1 if self.regressions else 0


def natural_key(name: str) -> tuple[tuple[tuple[str, int], ...], ...]:
    """Sorts names by family, variant and size, numbers as numbers: .../4096 before
    .../65536, params:256 before params:4096."""
    def part_key(part: str) -> tuple[tuple[str, int], ...]:
        pieces = re.split(r"(\d+)", part)  # text at even indices, digits at odd ones
        return tuple((text, int(digits) if digits else -1)
                     for text, digits in zip(pieces[::2], [*pieces[1::2], ""]))
    return tuple(part_key(part) for part in name.split("/"))


def change_pct(baseline: float, contender: float, bigger_is_better: bool) -> float:
    """Relative change in percent, signed so that positive is better whatever the direction."""
    if baseline == 0 or not (math.isfinite(baseline) and math.isfinite(contender)):
        return math.nan
    better_by = contender - baseline if bigger_is_better else baseline - contender
    return better_by / abs(baseline) * 100


def better_ratio(baseline: float, contender: float, bigger_is_better: bool) -> float:
    """How many times better the contender is (GB/s: contender / baseline; µs: baseline /
    contender)."""
    if baseline <= 0 or contender <= 0:
        return math.nan
    return contender / baseline if bigger_is_better else baseline / contender


def mann_whitney_p(base: Iterable[float], cont: Iterable[float]) -> float:
    # Imported here: scipy.stats is most of the start-up time, and only repetitions need it.
    from scipy.stats import mannwhitneyu

    p = float(mannwhitneyu(list(base), list(cont), alternative="two-sided").pvalue)
    return 1.0 if math.isnan(p) else p  # NaN: every value equal on both sides


def compare_benchmark(base: Benchmark, cont: Benchmark, threshold: float, alpha: float) -> Row:
    # Fall back to real time if the files disagree on which counters a benchmark reports.
    metric = base.metric if base.metric == cont.metric else REAL_TIME_US
    b_reps, c_reps = base.repetition_values(metric), cont.repetition_values(metric)
    p_value, p_reachable = None, True
    if len(b_reps) >= 2 and len(c_reps) >= 2:
        p_value = mann_whitney_p(b_reps, c_reps)
        # Smallest exact two-sided p: the samples fully separated.
        p_reachable = 2 / math.comb(len(b_reps) + len(c_reps), len(b_reps)) < alpha
    b_value, c_value = base.value(metric), cont.value(metric)
    change = change_pct(b_value, c_value, metric.bigger_is_better)
    significant = p_value is None or p_value < alpha
    verdict = SAME
    if abs(change) > threshold and significant:
        verdict = FASTER if change > 0 else SLOWER
    return Row(base.name, metric, b_value, c_value,
               better_ratio(b_value, c_value, metric.bigger_is_better),
               base.cv_pct(metric), cont.cv_pct(metric), p_value, p_reachable, verdict)


def context_differences(base: Result, cont: Result) -> list[tuple[str, str, str]]:
    keys = sorted(base.context.keys() | cont.context.keys(),
                  key=lambda k: (LEADING_CONTEXT_KEYS.index(k) if k in LEADING_CONTEXT_KEYS
                                 else len(LEADING_CONTEXT_KEYS), k))
    differences = []
    for key in keys:
        b, c = base.context_text(key), cont.context_text(key)
        if b != c:
            differences.append((key, "(absent)" if b is None else b,
                                "(absent)" if c is None else c))
    return differences


def compare(base: Result, cont: Result, threshold: float, alpha: float,
            force_report: bool = False) -> Comparison:
    common = base.benchmarks.keys() & cont.benchmarks.keys()
    rows = [compare_benchmark(base.benchmarks[name], cont.benchmarks[name], threshold, alpha)
            for name in sorted(common, key=natural_key)]
    same_setup = all(base.context_text(k) == cont.context_text(k) for k in IDENTITY_KEYS)
    return Comparison(
        base, cont, rows, threshold, alpha, same_setup and not force_report,
        context_differences(base, cont),
        sorted(base.benchmarks.keys() - common, key=natural_key),
        sorted(cont.benchmarks.keys() - common, key=natural_key),
    )


def family_summaries(rows: list[Row]) -> list[FamilySummary]:
    from scipy.stats import gmean

    summaries = []
    for family in dict.fromkeys(r.family for r in rows):
        members = [r for r in rows if r.family == family]
        ratios = [r.ratio for r in members if math.isfinite(r.ratio)]
        counts = {v: sum(r.verdict == v for r in members) for v in (FASTER, SLOWER, SAME)}
        summaries.append(FamilySummary(family, float(gmean(ratios)) if ratios else math.nan,
                                       counts))
    return summaries


# Rendering: plain text for terminals and CI logs, markdown for $GITHUB_STEP_SUMMARY and
# report.md. Each section is a list of blocks; blocks are joined by blank lines.


def format_value(value: float) -> str:
    return f"{value:.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def format_ratio(ratio: float) -> str:
    """'1.80× faster', '1.25× slower' ('×' times as fast as the baseline, or as slow)."""
    if not math.isfinite(ratio):
        return "-"
    if round(ratio, 2) == 1 and round(1 / ratio, 2) == 1:
        return "1.00×"
    times = ratio if ratio > 1 else 1 / ratio
    shown = f"{times:.2f}" if times < 100 else f"{times:.0f}"
    return f"{shown}× faster" if ratio > 1 else f"{shown}× slower"


def format_cv(cv: tuple[float, int] | None) -> str:
    return "-" if cv is None else f"{cv[0]:.2f}"


def repetitions(row: Row) -> str:
    return " / ".join("1" if cv is None else str(cv[1]) for cv in (row.base_cv, row.cont_cv))


TABLE_HEADERS = ["benchmark", "BASE", "NEW", "unit", "NEW vs BASE", "change %",
                 "CV % BASE", "CV % NEW", "repetitions", "p", "verdict"]


def table_row(row: Row) -> list[str]:
    return [
        row.name,
        format_value(row.baseline),
        format_value(row.contender),
        row.metric.unit,
        format_ratio(row.ratio),
        f"{row.change_pct:+.2f}",
        format_cv(row.base_cv),
        format_cv(row.cont_cv),
        repetitions(row),
        "-" if row.p_value is None else f"{row.p_value:.3g}",
        row.verdict,
    ]


def heading(title: str, markdown: bool, level: int = 2) -> str:
    return f"{'#' * level} {title}" if markdown else f"{title}\n{'=' * len(title)}"


def mode_line(comparison: Comparison) -> str:
    base, cont = comparison.base, comparison.cont
    setup = f"{base.gpu_name}, driver {base.driver_version}, CUDA {base.cuda_version}"
    if comparison.regression_check:
        return f"Regression check: same GPU, driver and CUDA ({setup})."
    differing = [k for k in IDENTITY_KEYS if base.context_text(k) != cont.context_text(k)]
    why = (f"{', '.join(differing)} differ" if differing else "--report")
    return (f"Comparison report, not a regression check ({why}): "
            f"{setup} vs {cont.gpu_name}, driver {cont.driver_version}, "
            f"CUDA {cont.cuda_version}.")


def header_section(comparison: Comparison, markdown: bool,
                   title: str = "gpubench comparison", level: int = 2) -> list[str]:
    c = comparison
    files = [f"BASE: {c.base.path} ({c.base.describe()})",
             f"NEW:  {c.cont.path} ({c.cont.describe()})"]
    rule = (f"Verdicts: FASTER or SLOWER when the figure moved by more than {c.threshold:g}% "
            f"and, where both files hold repetitions, the Mann-Whitney U test gives "
            f"p < {c.alpha:g}; SAME otherwise. Higher GB/s and lower µs are better.")
    if markdown:
        return [heading(title, True, level),
                "\n".join(f"- {line}" for line in files), mode_line(c), rule]
    return ["\n".join([*files, mode_line(c), rule])]


def context_section(comparison: Comparison, markdown: bool) -> list[str]:
    if not comparison.context_differences:
        return [f"{heading('Context', markdown, 3)}\n\nThe contexts are identical."]
    rows = [[key, b, c] for key, b, c in comparison.context_differences]
    return [heading("Context differences", markdown, 3),
            render(["context key", "BASE", "NEW"], rows, markdown=markdown, align="left")]


def summary_section(comparison: Comparison, markdown: bool) -> list[str]:
    rows = [[s.family, str(s.compared), format_ratio(s.geomean_ratio),
             str(s.counts[FASTER]), str(s.counts[SLOWER]), str(s.counts[SAME])]
            for s in family_summaries(comparison.rows)]
    return [heading("Summary per family", markdown, 3),
            render(["family", "compared", "NEW vs BASE (geometric mean)", FASTER, SLOWER, SAME],
                   rows, markdown=markdown)]


def only_in_one_section(comparison: Comparison, markdown: bool) -> list[str]:
    blocks = []
    for label, names, other in (("BASE", comparison.only_base, comparison.cont),
                                ("NEW", comparison.only_cont, comparison.base)):
        if not names:
            continue
        lines = []
        for family in dict.fromkeys(n.split("/", 1)[0] for n in names):
            members = [n for n in names if n.split("/", 1)[0] == family]
            if not other.family(family):
                listed = f"all {len(members)} (the other file has no {family} benchmarks)"
            else:
                listed = ", ".join(members)
            lines.append(f"{'- ' if markdown else '  '}{family} ({len(members)}): {listed}")
        blocks.append(f"Only in {label} ({len(names)}), not compared:\n" + "\n".join(lines))
    return [heading("Benchmarks in one file only", markdown, 3), *blocks] if blocks else []


def family_tables(comparison: Comparison, markdown: bool,
                  only_changed: bool) -> list[tuple[str, str | None]]:
    """(title, table) per family; the table is None where --only-changed leaves no row."""
    tables = []
    for family in dict.fromkeys(r.family for r in comparison.rows):
        rows = [r for r in comparison.rows if r.family == family]
        shown = [r for r in rows if r.verdict != SAME] if only_changed else rows
        title = f"{family}: {len(rows)} compared"
        if only_changed:
            title += f", {len(shown)} changed"
        table = render(TABLE_HEADERS, [table_row(r) for r in shown], markdown=markdown)
        tables.append((title, table if shown else None))
    return tables


def tables_section(comparison: Comparison, markdown: bool, only_changed: bool) -> list[str]:
    blocks = []
    for title, table in family_tables(comparison, markdown, only_changed):
        blocks.append(heading(title, markdown, 3))
        if table is not None:
            blocks.append(table)
    return blocks


def notes_section(comparison: Comparison) -> list[str]:
    c, notes = comparison, []
    for label, result in (("BASE", c.base), ("NEW", c.cont)):
        with_reps = sum(b.repetition_values().size >= 2 for b in result.benchmarks.values())
        if with_reps == 0:
            how = ("only aggregates (--benchmark_report_aggregates_only=true)"
                   if any(b.cv is not None for b in result.benchmarks.values())
                   else "one run per benchmark")
            notes.append(f"{label} ({result.path}) holds no repetitions, {how}: every verdict "
                         "rests on the threshold alone. Keep the repetitions "
                         "(--benchmark_repetitions=5 without aggregates only) for the U test.")
    untested = sum(r.p_value is None for r in c.rows)
    if untested and not notes:
        notes.append(f"{untested} benchmark(s) lack repetitions in a file: their verdicts "
                     "rest on the threshold alone.")
    unreachable = sum(not r.p_reachable for r in c.rows)
    if unreachable:
        notes.append(f"{unreachable} benchmark(s) have too few repetitions for p < {c.alpha:g} "
                     "to be possible, so they stay SAME; use more repetitions.")
    return notes


def verdict_line(comparison: Comparison) -> str:
    c = comparison
    counts = {v: sum(r.verdict == v for r in c.rows) for v in (FASTER, SLOWER, SAME)}
    tally = ", ".join(f"{n} {v}" for v, n in counts.items())
    if not c.regression_check:
        return f"REPORT: {len(c.rows)} benchmark(s) compared: {tally}."
    regressions = len(c.regressions)
    return (f"{'FAIL' if regressions else 'OK'}: {regressions} of {len(c.rows)} "
            f"benchmark(s) regressed ({tally}).")


def render_comparison(comparison: Comparison, markdown: bool = False,
                      only_changed: bool = False) -> str:
    blocks = [*header_section(comparison, markdown), *context_section(comparison, markdown),
              *summary_section(comparison, markdown), *only_in_one_section(comparison, markdown),
              *tables_section(comparison, markdown, only_changed), *notes_section(comparison),
              verdict_line(comparison)]
    return "\n\n".join(blocks) + "\n"


def add_comparison_options(parser: OneLineArgumentParser) -> None:
    """The options compare.py and report.py share."""
    parser.add_argument("--threshold", type=positive_finite, default=5.0, metavar="PCT",
                        help="smallest change in percent that counts (default 5)")
    parser.add_argument("--alpha", type=open_unit_interval, default=0.05,
                        help="significance level of the Mann-Whitney U test, in (0, 1) "
                             "(default 0.05)")
    parser.add_argument("--only-changed", action="store_true",
                        help="list only FASTER and SLOWER benchmarks (the summary counts all)")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = OneLineArgumentParser(prog=SCRIPT, description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("baseline", type=Path, metavar="BASE.json")
    parser.add_argument("contender", type=Path, metavar="NEW.json")
    add_comparison_options(parser)
    parser.add_argument("--report", action="store_true",
                        help="a comparison report (exit 0) even when GPU, driver and CUDA match")
    parser.add_argument("--markdown", action="store_true",
                        help="GitHub markdown, e.g. for $GITHUB_STEP_SUMMARY")
    return parser.parse_args(argv)


def load_pair(base_path: Path, cont_path: Path) -> tuple[Result, Result]:
    """Both results; GpubenchJsonError for either, or for two files with nothing in common."""
    base, cont = load(base_path), load(cont_path)
    if not base.benchmarks.keys() & cont.benchmarks.keys():
        raise GpubenchJsonError(f"{cont.path}: no benchmark in common with {base.path}")
    return base, cont


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sys.stdout.reconfigure(errors="backslashreplace")  # a name that is not UTF-8 still prints
    try:
        base, cont = load_pair(args.baseline, args.contender)
        comparison = compare(base, cont, args.threshold, args.alpha, args.report)
        write_stdout(render_comparison(comparison, args.markdown, args.only_changed))
    except (GpubenchJsonError, OSError) as error:
        return script_error(SCRIPT, error)
    return comparison.exit_status


if __name__ == "__main__":
    sys.exit(main())
