#!/usr/bin/env python3
"""Compare two gpubench results: a regression check, or a comparison of GPUs, drivers or CUDA.

Each benchmark is judged by its figure, as its family's facts say (the context's
gpubench_families; in a file without them GB/s where a benchmark has it, else its µs per
operation, else its real time): its unit and which way is better. Its change is one symmetric
ratio in the direction of better, the medians' "1.05× slower" or "1.05× faster".

Each benchmark has a resolution, the smallest change it can detect given its noise: the largest
of a floor (--threshold, or --host-threshold for a figure timed on the host clock; a figure is
host-timed where Benchmark.host_paced says so: gpubench's host_timed, or pageable memory),
--sigmas times the combined spread of both sides' figures, and how far the farthest of BASE's
repetitions lies from BASE's median (one build moves that much between runs by itself; record
the baseline with many runs, and a candidate is judged against the levels they show). A side's
figure is the median of its repetitions, so its spread is the relative spread of one repetition
times sqrt(pi/2)/sqrt(n) (the standard error of a median of n); the spread of one repetition is
the median absolute deviation of the repetitions (robust to one odd repetition) or gpubench's own
noise_pct of its timed batches, whichever is larger; in a file written with aggregates only,
Google Benchmark's cv. A benchmark is FASTER or SLOWER when its change passes
its resolution and, where both sides hold repetitions, the two-sided Mann-Whitney U test on
them gives p < --alpha; otherwise it is SAME. Files written before gpubench recorded noise_pct
and host_timed are read too: their spread comes from the repetitions alone, and every figure
has the --threshold floor.

When both files come from the same GPU, driver and CUDA runtime (context gpu_name,
driver_version, cuda_runtime_version) and measured alike (--energy on or off in both, context
energy; where saxpy is compared, the same --l2, context saxpy_l2, where both files state it),
and BASE holds separate runs (context merged_runs, as scripts/ci_record.sh records), this is a
regression check: exit 1 if any benchmark is SLOWER. Otherwise it is no regression check (a
warm L2 against a cold one is a change of setting, not of code; one process's run leaves out
what moves between processes, which is more than moves within one): one line names why, exit
3, unless --report asks for a comparison report (exit 0, also on the same setup), whose mode
line names it.

Exit status: 0 no regression (or a report), 1 regression, 2 unusable input, bad usage or a
--changed-filter file that is one of the results read, 3 a different GPU, driver, CUDA or
measurement setting, or a BASE of one process's run, without --report, 5 with --missing-fails,
benchmarks of BASE that NEW lacks.
"""

import script_process  # noqa: F401  (imported first)
import argparse
import math
import re
import sys
from pathlib import Path

from comparison import (FASTER, SAME, SLOWER, Comparison, Row, Rules, Spread, compare,
                        confirmed, family_summaries, filter_text, reachable, rows_by_family,
                        settings_text)
from gpubench_json import (FILTER_KEY, INTERLEAVING_KEY, SETTING_SHOWN, THROTTLE_DROP,
                           GpubenchJsonError, Result, by_family, load)
from launch_ratios import agreements, format_agreements, ratio_rows
from name_filter import (MAX_FILTER_CHARS, FilterError, NameFilter, name_filter,
                         changed_filter)
from safe_text import one_line, printable, printable_lines
from script_cli import (OneLineArgumentParser, open_unit_interval, positive_finite,
                        refuse_output_over_input, script_error, write_output, write_stdout)
from text_table import render

SCRIPT = "compare.py"
DIFFERENT_SETUP = 3  # exit status: no regression check (another GPU, setting; one run)
MISSING_FROM_NEW = 5  # exit status with --missing-fails: benchmarks of BASE that NEW lacks
LARGEST_SHOWN = 5  # changes listed under the verdict


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


def format_resolution(pct: float) -> str:
    """The resolution in the ratio's own terms: '1.03×' (a change of 3% either way)."""
    times = 1 + pct / 100
    return f"{times:.2f}×" if times < 100 else f"{times:.0f}×"


def format_spread(spread: Spread | None) -> str:
    return "-" if spread is None else f"{spread.pct:.2f}"


def format_timing(host_timed: bool | None) -> str:
    return "-" if host_timed is None else ("host" if host_timed else "GPU")


def repetitions(row: Row) -> str:
    return " / ".join("-" if s is None else str(s.repetitions)
                      for s in (row.base_spread, row.cont_spread))


TABLE_HEADERS = ["benchmark", "BASE", "NEW", "unit", "NEW vs BASE", "resolution",
                 "spread % BASE", "spread % NEW", "repetitions", "clock", "p", "verdict"]


def table_row(row: Row) -> list[str]:
    return [
        row.name,
        format_value(row.baseline),
        format_value(row.contender),
        row.metric.unit,
        format_ratio(row.ratio),
        format_resolution(row.resolution_pct),
        format_spread(row.base_spread),
        format_spread(row.cont_spread),
        repetitions(row),
        format_timing(row.host_timed),
        "-" if row.p_value is None else f"{row.p_value:.3g}",
        row.verdict_text,
    ]


def heading(title: str, markdown: bool, level: int = 2) -> str:
    return f"{'#' * level} {title}" if markdown else f"{title}\n{'=' * len(title)}"


def setup_text(result: Result) -> str:
    return f"{result.describe()}, CUDA {printable(result.cuda_version)}"


def mode_line(comparison: Comparison) -> str:
    c = comparison
    if c.regression_check:
        if (cards := c.other_card) is None:
            return f"Regression check: same GPU, driver and CUDA ({setup_text(c.base)})."
        return (f"Regression check: same GPU model, driver and CUDA ({setup_text(c.base)}), "
                f"but another card (BASE {cards[0]}, NEW {cards[1]}): what differs between two "
                "cards of one model shows here as a change.")
    differing = c.differing_identity
    why = "; ".join([*([f"{', '.join(differing)} differ"] if differing else []),
                     *([f"measured otherwise: {settings_text(c.differing_settings)}"]
                       if c.differing_settings else []),
                     *(["BASE is one process's run"] if c.one_process_base else [])]) \
        or "--report"
    cards = "" if c.other_card is None else \
        f"; another card (BASE {c.other_card[0]}, NEW {c.other_card[1]})"
    return (f"Comparison report, not a regression check ({why}): "
            f"{setup_text(c.base)} vs {setup_text(c.cont)}{cards}.")


def rule_text(rules: Rules) -> str:
    return (f"Verdicts: FASTER or SLOWER when the change passes the benchmark's resolution, "
            f"the largest of {rules.threshold:g}% ({rules.host_threshold:g}% for a host-timed "
            f"figure), {rules.sigmas:g} × the combined spread of both sides' medians and the "
            "farthest any BASE run lies from BASE's median, and, where "
            f"both sides hold repetitions, the Mann-Whitney U test gives p < {rules.alpha:g}; "
            "SAME otherwise. Each figure's family says which way is better.")


def header_section(comparison: Comparison, markdown: bool,
                   title: str = "gpubench comparison", level: int = 2) -> list[str]:
    c = comparison
    files = [f"BASE: {printable(c.base.path)} ({c.base.describe()})",
             f"NEW:  {printable(c.cont.path)} ({c.cont.describe()})"]
    if c.confirm is not None:
        files.append(f"CONFIRM: {printable(c.confirm.path)}: each change NEW shows judged again "
                     "on these runs alone, standing where they give the same verdict")
    if markdown:
        return [heading(title, True, level), verdict_line(c), *largest_changes_section(c, True),
                "\n".join(f"- {line}" for line in files), mode_line(c), rule_text(c.rules)]
    return [verdict_line(c), *largest_changes_section(c, False),
            "\n".join([*files, mode_line(c), rule_text(c.rules)])]


def largest_changes_section(comparison: Comparison, markdown: bool) -> list[str]:
    """The largest changes of the whole comparison, whatever their verdicts."""
    rows = sorted(comparison.rows, key=lambda r: -r.size_of_change)[:LARGEST_SHOWN]
    rows = [r for r in rows if r.size_of_change > 0]
    if not rows:
        return []
    lines = [f"{'- ' if markdown else '  '}{r.name}: {format_ratio(r.ratio)} "
             f"(resolution {format_resolution(r.resolution_pct)}), {r.verdict_text}"
             for r in rows]
    return ["Largest changes:\n" + "\n".join(lines)]


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
        for family, members in by_family(names, str).items():
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
    for family, rows in rows_by_family(comparison.rows).items():
        # A change the confirming runs did not show is listed too: it is what the gate cleared.
        shown = ([r for r in rows if r.verdict != SAME or r.confirmed is False]
                 if only_changed else rows)
        title = f"{family}: {len(rows)} compared"
        if only_changed:
            title += f", {sum(r.verdict != SAME for r in shown)} changed"
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


def paired_section(comparison: Comparison, markdown: bool) -> list[str]:
    """The launch paths' paired ratios (launch/paired/) of both runs, each with its 95%
    interval, and whether the two runs agree (their intervals overlap)."""
    compared = {r.name for r in comparison.rows}
    pairs = [p for p in agreements(ratio_rows(comparison.base), ratio_rows(comparison.cont))
             if p.first.benchmark in compared]
    if not pairs:
        return []
    agreeing = sum(p.overlap for p in pairs)
    return [heading("Launch paths against each other (launch/paired/)", markdown, 3),
            f"{agreeing} of {len(pairs)} paired ratios agree between BASE and NEW (their 95% "
            "intervals overlap); a ratio below 1 is the cheaper path.",
            format_agreements(pairs, markdown, labels=("BASE", "NEW"))]


def kernel_clock_note(comparison: Comparison) -> str | None:
    """A note naming the compared benchmarks whose kernels read SM clocks more than
    THROTTLE_DROP apart on the two sides (sm_clock_kernel_mhz, a condition of the figure, not a
    figure compared): their change may be the clock's."""
    apart = []
    for row in comparison.rows:
        base = comparison.base.benchmarks[row.name].kernel_sm_clock_mhz
        cont = comparison.cont.benchmarks[row.name].kernel_sm_clock_mhz
        if base and cont and abs(cont - base) > THROTTLE_DROP * max(base, cont):
            apart.append(f"{row.name} ({base:.0f} vs {cont:.0f} MHz)")
    if not apart:
        return None
    shown = ", ".join(apart[:10]) + (", ..." if len(apart) > 10 else "")
    return (f"{len(apart)} compared benchmark(s) ran at SM clocks more than "
            f"{100 * THROTTLE_DROP:.0f}% apart as their kernels read them "
            f"(sm_clock_kernel_mhz, BASE vs NEW): {shown}. Their change may be the clock's.")


def notes_section(comparison: Comparison) -> list[str]:
    c, notes = comparison, []
    for label, result in (("BASE", c.base), ("NEW", c.cont)):
        with_reps = sum(b.repetition_values().size >= 2 for b in result.benchmarks.values())
        if with_reps == 0:
            how = ("only aggregates (--benchmark_report_aggregates_only=true)"
                   if any(b.cv is not None for b in result.benchmarks.values())
                   else "one run per benchmark")
            notes.append(f"{label} ({result.path}) holds no repetitions, {how}: no verdict "
                         "has the U test, and a run's spread from one minute to the next is "
                         "not in its resolution. Record both sides with scripts/ci_record.sh "
                         "(docs/ci.md).")
    for label, result in (("BASE", c.base), ("NEW", c.cont)):
        throttled = [r.name for r in c.rows if result.benchmarks[r.name].throttled]
        if throttled:
            shown = ", ".join(throttled[:10]) + (", ..." if len(throttled) > 10 else "")
            notes.append(f"{label} ran {len(throttled)} compared benchmark(s) with the GPU's "
                         f"clocks held down (clock_limited_ms, or the SM clock fell by more than "
                         f"10%): {shown}. Their figures are of a throttled GPU.")
    if clock_note := kernel_clock_note(comparison):
        notes.append(clock_note)
    if filter_note := filter_difference_note(comparison):
        notes.append(filter_note)
    if order_note := interleaving_difference_note(comparison):
        notes.append(order_note)
    untested = sum(r.p_value is None for r in c.rows)
    if untested and not notes:
        notes.append(f"{untested} benchmark(s) lack repetitions in a file: their verdicts "
                     "rest on the resolution alone.")
    unreachable = sum(not r.p_reachable for r in c.rows)
    if unreachable:
        notes.append(f"{unreachable} benchmark(s) have too few repetitions for p < "
                     f"{c.rules.alpha:g} to be possible, so they stay SAME; use more "
                     "repetitions.")
    if c.rows and all(r.host_timed is None for r in c.rows):
        notes.append("Neither file says which figures are host-timed (gpubench writes "
                     "host_timed since it measures its own noise): every resolution has the "
                     f"{c.rules.threshold:g}% floor.")
    return notes


def filter_difference_note(comparison: Comparison) -> str | None:
    """Where the two runs were given different --benchmark_filter (one of them none), that a
    benchmark among other benchmarks can measure otherwise; None where they agree."""
    base, new = (r.context_text(FILTER_KEY) for r in (comparison.base, comparison.cont))
    if base == new:
        return None
    return (f"BASE states {filter_text(base)}, NEW {filter_text(new)}: a benchmark run among "
            "other benchmarks can measure otherwise (on one H200, graph replay took 0.61-0.70 "
            "µs a node in runs of 11 benchmarks and 0.79-0.84 µs in runs of the suite: "
            "results/h200/verdicts/gate_aa/filtered_confirm/runs_by_stage.txt).")


def interleaving_difference_note(comparison: Comparison) -> str | None:
    """Where one run interleaved its repetitions at random and the other did not (both say),
    that each repetition ran beside other benchmarks; None where they agree or one does not say.
    """
    base, new = (r.context_text(INTERLEAVING_KEY) for r in (comparison.base, comparison.cont))
    if base is None or new is None or base == new:
        return None
    return (f"BASE states {INTERLEAVING_KEY}={one_line(base, SETTING_SHOWN)}, NEW "
            f"{one_line(new, SETTING_SHOWN)}: the interleaved run measured each repetition "
            "right after another benchmark's, the other after its own, and a benchmark can "
            "measure otherwise beside others (as between runs of different filters: "
            "results/h200/verdicts/gate_aa/filtered_confirm/runs_by_stage.txt). "
            "scripts/ci_gate.sh records its candidate as its baseline was.")


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
    """The verdict and the largest changes first, the details after, the verdict again last
    (where a CI log's tail shows it)."""
    blocks = [*header_section(comparison, markdown), *context_section(comparison, markdown),
              *summary_section(comparison, markdown), *only_in_one_section(comparison, markdown),
              *tables_section(comparison, markdown, only_changed),
              *paired_section(comparison, markdown), *notes_section(comparison),
              verdict_line(comparison)]
    # Names and paths reach many sections (the largest changes, one file only, the notes):
    # every line is made printable here, once, so none shows a file's control characters.
    return printable_lines("\n\n".join(blocks) + "\n")


def different_setup_line(comparison: Comparison) -> str:
    """Why a comparison cannot be a regression check, in one line: the GPU, driver or CUDA that
    differ, else the measurement settings."""
    c = comparison
    if c.differing_identity:
        return (f"cannot compare: {', '.join(c.differing_identity)} differ (BASE {c.base.path}: "
                f"{setup_text(c.base)}; NEW {c.cont.path}: {setup_text(c.cont)}); record a "
                "baseline on this GPU, driver and CUDA, or pass --report for a comparison report")
    if c.differing_settings:
        return (f"cannot compare: measured otherwise ({settings_text(c.differing_settings)}; "
                f"BASE {c.base.path}, NEW {c.cont.path}): a change of setting is no change of "
                "code; record a baseline with NEW's settings, or pass --report for a comparison "
                "report")
    return (f"cannot judge a regression: BASE {c.base.path} is one process's run, and figures "
            "move between processes by more than one process shows; record the baseline in "
            "separate runs (scripts/ci_record.sh), or pass --report for a comparison report")


def missing_line(comparison: Comparison) -> str:
    """What NEW lacks of BASE's benchmarks, in one line: how many, the first few by name."""
    names = comparison.only_base
    more = f" and {len(names) - LARGEST_SHOWN} more" if len(names) > LARGEST_SHOWN else ""
    return (f"{comparison.cont.path} lacks {len(names)} of the "
            f"{len(comparison.rows) + len(names)} benchmark(s) of {comparison.base.path}: "
            f"{', '.join(names[:LARGEST_SHOWN])}{more}; record them, or a baseline without them")


def run_count(text: str) -> int:
    """An option value that is a whole number of runs, 1 or more."""
    if not re.fullmatch(r"[0-9]{1,6}", text) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of runs from 1, not {text!r}")
    return int(text)


def too_few_runs_line(base: Result, new_runs: int, rules: Rules,
                      pattern: NameFilter | None) -> str | None:
    """Where `new_runs` runs against the most runs any of BASE's benchmarks (that `pattern`
    finds) holds can give no p < alpha, so that every verdict is SAME, one line saying so."""
    names = list(base.benchmarks) if pattern is None else pattern.select(base.benchmarks)
    most = max(base.benchmarks[n].repetition_values().size for n in names)
    if reachable(most, new_runs, rules.alpha):
        return None
    return (f"--new-runs={new_runs}: {new_runs} runs against the {most} of {base.path} can give "
            f"no p < {rules.alpha:g} in the U test, so no benchmark could be found SLOWER or "
            "FASTER; record more runs (ci_gate.sh: GPUBENCH_RUNS)")


def regex(text: str) -> NameFilter:
    try:
        return name_filter(text)
    except FilterError as e:
        raise argparse.ArgumentTypeError(e.problem) from None


def add_comparison_options(parser: OneLineArgumentParser) -> None:
    """The options compare.py and report.py share."""
    parser.add_argument("--threshold", type=positive_finite, default=3.0, metavar="PCT",
                        help="smallest change in percent that counts for a GPU-timed figure "
                             "or one whose clock the file does not say (default 3)")
    parser.add_argument("--host-threshold", type=positive_finite, default=25.0, metavar="PCT",
                        help="smallest change in percent that counts for a host-timed figure "
                             "(default 25): the host's speed moves by 10-25%% between minutes")
    parser.add_argument("--sigmas", type=positive_finite, default=2.0,
                        help="how many combined spreads of both sides' medians a change has "
                             "to pass (default 2)")
    parser.add_argument("--alpha", type=open_unit_interval, default=0.01,
                        help="significance level of the Mann-Whitney U test, in (0, 1) "
                             "(default 0.01: a gate judges hundreds of benchmarks at once)")
    parser.add_argument("--filter", type=regex, metavar="REGEX",
                        help="compare only benchmarks whose name this regular expression "
                             "finds (re.search)")
    parser.add_argument("--only-changed", action="store_true",
                        help="list only FASTER and SLOWER benchmarks (and with compare.py's "
                             "--confirm, changes not confirmed); the summary counts all")


def rules_from(args: argparse.Namespace) -> Rules:
    return Rules(args.threshold, args.host_threshold, args.sigmas, args.alpha)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = OneLineArgumentParser(prog=SCRIPT, description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("baseline", type=Path, metavar="BASE.json")
    parser.add_argument("contender", type=Path, metavar="NEW.json")
    add_comparison_options(parser)
    parser.add_argument("--report", action="store_true",
                        help="a comparison report (exit 0), also of another GPU, driver or "
                             "CUDA")
    parser.add_argument("--markdown", action="store_true",
                        help="GitHub markdown, e.g. for $GITHUB_STEP_SUMMARY")
    parser.add_argument("--confirm", type=Path, metavar="CONFIRM.json",
                        help="runs of NEW's build recorded after it as NEW was (the same "
                             "settings and filter), a file of their own: each benchmark NEW "
                             "shows SLOWER or FASTER is judged again on these runs alone "
                             "against BASE, and stays so only where they give the same verdict "
                             "(scripts/ci_gate.sh confirms its changes this way)")
    parser.add_argument("--changed-filter", type=Path, metavar="FILE",
                        help="also write FILE: a gpubench --benchmark_filter, on one line, "
                             "selecting the benchmarks found SLOWER or FASTER, or their whole "
                             f"families where those take more than the {MAX_FILTER_CHARS} "
                             "characters a filter holds; empty where none is "
                             "(scripts/ci_gate.sh names with it what it confirms)")
    parser.add_argument("--new-runs", type=run_count, metavar="N",
                        help="exit 2 where N runs of NEW against BASE's can give no p below "
                             "--alpha, so that no benchmark could be found SLOWER (scripts/"
                             "ci_gate.sh checks its GPUBENCH_RUNS so, before its runs)")
    parser.add_argument("--missing-fails", action="store_true",
                        help=f"in a regression check, exit {MISSING_FROM_NEW} where NEW lacks "
                             "benchmarks of BASE (that --filter finds), naming them in one line "
                             "(scripts/ci_gate.sh asks for it: a benchmark no longer run passes "
                             "no check)")
    return parser.parse_args(argv)


def load_pair(base_path: Path, cont_path: Path,
              pattern: NameFilter | None = None) -> tuple[Result, Result]:
    """Both results; GpubenchJsonError for either, or for two files with nothing in common
    (among the benchmarks `pattern` finds); FilterError for a pattern too slow to match."""
    base, cont = load(base_path), load(cont_path)
    common = [n for n in base.benchmarks if n in cont.benchmarks]
    if pattern is not None:
        common = pattern.select(common)
    if not common:
        which = f" that --filter={pattern.text} finds" if pattern is not None else ""
        raise GpubenchJsonError(f"{cont.path}: no benchmark{which} in common with {base.path}")
    return base, cont


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sys.stdout.reconfigure(errors="backslashreplace")
    try:
        if args.changed_filter is not None:
            refuse_output_over_input(args.changed_filter, [args.baseline, args.contender]
                                     + ([args.confirm] if args.confirm is not None else []))
        base, cont = load_pair(args.baseline, args.contender, args.filter)
        comparison = compare(base, cont, rules_from(args), args.report, args.filter)
        if not comparison.checkable and not args.report:
            script_error(SCRIPT, different_setup_line(comparison))
            return DIFFERENT_SETUP
        if args.new_runs is not None and (
                line := too_few_runs_line(base, args.new_runs, rules_from(args), args.filter)):
            return script_error(SCRIPT, line)
        if args.missing_fails and comparison.regression_check and comparison.only_base:
            script_error(SCRIPT, missing_line(comparison))
            return MISSING_FROM_NEW
        if args.confirm is not None:
            comparison = confirmed(comparison, load(args.confirm))
        if args.changed_filter is not None:
            changed = changed_filter(r.name for r in comparison.rows if r.verdict != SAME)
            write_output(args.changed_filter, f"{changed}\n" if changed else "")
        write_stdout(render_comparison(comparison, args.markdown, args.only_changed))
    except (GpubenchJsonError, OSError) as error:
        return script_error(SCRIPT, error)
    except FilterError as error:
        return script_error(SCRIPT, f"--filter={error}")
    return comparison.exit_status


if __name__ == "__main__":
    sys.exit(main())
