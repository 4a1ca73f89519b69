"""Compare two gpubench results: a regression check, or a comparison of GPUs, drivers or CUDA.

Each benchmark is judged by its figure, as its family's facts say (the context's
gpubench_families; in a file without them GB/s where a benchmark has it, else its µs per
operation, else its real time): its unit and which way is better. Its change is one symmetric
ratio in the direction of better, the medians' "1.05× slower" or "1.05× faster".

Each benchmark has a resolution, the smallest change it can detect given its noise: the largest
of a floor (--threshold, or --host-threshold for a figure timed on the host clock; a figure is
host-timed where Benchmark.host_paced says so: gpubench's host_timed, or pageable memory; not a
host-timed cost over host work timed in the same rounds, host_referenced, which the host's drift
cancels from),
--sigmas times the combined spread of both sides' figures, and how far the farthest of BASE's
repetitions lies from BASE's median (one build moves that much between runs by itself; record
the baseline with many runs, and a candidate is judged against the levels they show). With
--reach-chance=P, BASE's run that counts is instead the least far one that a median of NEW's
run count passes with a chance of P or less, were both sides runs of one build (for 5 runs
against 15 at 0.1, BASE's third farthest): for a baseline recorded on the gate's own card
shortly before, as the gate's power was measured. A side's
figure is the median of its repetitions, so its spread is the relative spread of one repetition
times sqrt(pi/2)/sqrt(n) (the standard error of a median of n); the spread of one repetition is
the median absolute deviation of the repetitions (robust to one odd repetition) or gpubench's own
noise_pct of its timed batches, whichever is larger; in a file written with aggregates only,
Google Benchmark's cv. A benchmark is FASTER or SLOWER when its change passes
its resolution and, where both sides hold repetitions, the two-sided Mann-Whitney U test on
them gives p < --alpha; otherwise it is SAME. Files written before gpubench recorded noise_pct
and host_timed are read too: their spread comes from the repetitions alone, and every figure
has the --threshold floor.

A benchmark no verdict can be reached on is UNRESOLVED, never SAME: where its resolution passes
10× (900%: a benchmark that cannot tell its figure from one ten times off tells nothing a check
can use), where a side's spread of one repetition is negative, not a number or past 100% (a
standard deviation as large as the figure is no measurement of a time or a rate), or where the
two files take it otherwise: another unit, scale or direction for its figure, or one file saying
the host paces it (host_timed, with its 25% floor) and the other that the GPU does (a file
written before host_timed says neither and takes the other's word). UNRESOLVED is listed
right after SLOWER, with why, and the verdict line counts it. What a figure is follows from its
unit, whatever a file claims: a time (ns, µs, s, µs per launch) is better lower, a rate (GB/s,
anything per second) higher; a file whose family facts say otherwise is refused in one line.

When both files come from the same GPU, driver and CUDA runtime (context gpu_name,
driver_version, cuda_runtime_version) and measured alike (--energy on or off in both, context
energy; where saxpy is compared, the same --l2, context saxpy_l2, where both files state it),
and BASE holds separate runs (context merged_runs, as scripts/gpubench-tools record \
records), this is a
regression check: exit 1 if any benchmark is SLOWER, or UNRESOLVED without
--accept-unresolved. Otherwise it is no regression check (a
warm L2 against a cold one is a change of setting, not of code; one process's run leaves out
what moves between processes, which is more than moves within one): one line on stderr names
why, the comparison follows on stdout, exit 3; --report asks for a comparison report (exit 0,
also on the same setup), whose mode line names it.

The output opens with the verdict and the changes, SLOWER first, then UNRESOLVED (each with
why), then FASTER, the largest first, each with its ratio and what it had to pass (its
resolution, each side's spread of one repetition, p of the U test); then how many are SAME;
then the files, the context keys that differ, a summary per family and a table of every
benchmark per family (--markdown, the summary for CI, folds each table; --only-changed lists the
changes alone).

Exit status: 0 no regression (or a report), 1 regression (a benchmark SLOWER, or UNRESOLVED
without --accept-unresolved), 2 unusable input, bad usage or a
--changed-filter file that is one of the results read, 3 no regression check, the comparison
printed (a different GPU, driver, CUDA or measurement setting, or a BASE of one process's run,
without --report; --changed-filter is not written), 5 with --missing-fails,
benchmarks of BASE that NEW lacks.
"""

import argparse
import re
import sys
from pathlib import Path

from gpubench_tools.cli.options import (
    OneLineArgumentParser,
    accepted_chance,
    open_unit_interval,
    positive_finite,
    script_error,
)
from gpubench_tools.models.comparison import (
    CHANGE_ORDER,
    Comparison,
    Rules,
    compare,
    confirmed,
    reachable,
    settings_text,
)
from gpubench_tools.models.unresolved import RESOLUTION_CEILING_PCT
from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.reading.name_filter import (
    MAX_FILTER_CHARS,
    FilterError,
    NameFilter,
    changed_filter,
    name_filter,
)
from gpubench_tools.reading.result_file import load
from gpubench_tools.reading.results import Result
from gpubench_tools.renderers.comparison_text import LARGEST_SHOWN, render_comparison, setup_text
from gpubench_tools.writing.outputs import refuse_output_over_input, write_output, write_stdout

SCRIPT = "gpubench-tools compare"
DIFFERENT_SETUP = 3  # exit status: no regression check (another GPU, setting; one run)
MISSING_FROM_NEW = 5  # exit status with --missing-fails: benchmarks of BASE that NEW lacks


def different_setup_line(comparison: Comparison) -> str:
    """Why a comparison is no regression check, in one line that heads it: the GPU, driver or
    CUDA that differ, else the measurement settings, else a BASE of one process's run."""
    c = comparison
    if c.differing_identity:
        why = (f"{', '.join(c.differing_identity)} differ (BASE {c.base.path}: "
               f"{setup_text(c.base)}; NEW {c.cont.path}: {setup_text(c.cont)}); record a "
               "baseline on this GPU, driver and CUDA for one")
    elif c.differing_settings:
        why = (f"measured otherwise ({settings_text(c.differing_settings)}; BASE {c.base.path}, "
               f"NEW {c.cont.path}): a change of setting is no change of code; record a "
               "baseline with NEW's settings for one")
    else:
        why = (f"BASE {c.base.path} is one process's run, and figures move between processes "
               "by more than one process shows; record the baseline in separate runs "
               "(scripts/gpubench-tools record) for one")
    return (f"no regression check: {why}; the comparison follows (exit {DIFFERENT_SETUP}; "
            "--report: exit 0)")


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
    finds) holds can give no p < alpha, so that every verdict (or that of every benchmark whose
    runs hold a tie or two) is SAME, one line saying so."""
    names = list(base.benchmarks) if pattern is None else pattern.select(base.benchmarks)
    most = max(base.benchmarks[n].repetition_values().size for n in names)
    if reachable(most, new_runs, rules.alpha):
        return None
    tied = reachable(most, new_runs, rules.alpha, ties=False)
    return (f"--new-runs={new_runs}: {new_runs} runs against the {most} of {base.path} can give "
            f"no p < {rules.alpha:g} in the U test{' to runs with a tie or two' if tied else ''}, "
            f"so no{' such' if tied else ''} benchmark could be found SLOWER or FASTER; "
            "record more runs (gpubench-tools gate: GPUBENCH_RUNS, GPUBENCH_CONFIRM_RUNS)")


def floor_pct(text: str) -> float:
    """A floor of the resolution: a finite number > 0 and within the resolution's ceiling, past
    which every benchmark would be UNRESOLVED."""
    value = positive_finite(text)
    if value > RESOLUTION_CEILING_PCT:
        raise argparse.ArgumentTypeError(f"must be at most {RESOLUTION_CEILING_PCT:g} (the "
                                         f"resolution's ceiling), not {text!r}")
    return value


def regex(text: str) -> NameFilter:
    try:
        return name_filter(text)
    except FilterError as e:
        raise argparse.ArgumentTypeError(e.problem) from None


def add_comparison_options(parser: OneLineArgumentParser) -> None:
    """The options gpubench-tools compare and gpubench-tools report share."""
    parser.add_argument("--threshold", type=floor_pct, default=3.0, metavar="PCT",
                        help="smallest change in percent that counts for a GPU-timed figure "
                             "or one whose clock the file does not say (default 3)")
    parser.add_argument("--host-threshold", type=floor_pct, default=25.0, metavar="PCT",
                        help="smallest change in percent that counts for a host-timed figure "
                             "(default 25): the host's speed moves by 10-25%% between minutes")
    parser.add_argument("--sigmas", type=positive_finite, default=2.0,
                        help="how many combined spreads of both sides' medians a change has "
                             "to pass (default 2)")
    parser.add_argument("--alpha", type=open_unit_interval, default=0.01,
                        help="significance level of the Mann-Whitney U test, in (0, 1) "
                             "(default 0.01: a gate judges hundreds of benchmarks at once)")
    parser.add_argument("--reach-chance", type=accepted_chance, default=0.0, metavar="P",
                        help="the chance, from 0 up to 1, with which a median of NEW's runs "
                             "of BASE's own build may pass the BASE run its change must pass "
                             "(default 0: BASE's farthest run)")
    parser.add_argument("--filter", type=regex, metavar="REGEX",
                        help="compare only benchmarks whose name this regular expression "
                             "finds (re.search)")
    parser.add_argument("--only-changed", action="store_true",
                        help="list only SLOWER, UNRESOLVED and FASTER benchmarks (and with "
                             "gpubench-tools compare's --confirm, changes not confirmed); the "
                             "summary counts all")


def rules_from(args: argparse.Namespace) -> Rules:
    return Rules(args.threshold, args.host_threshold, args.sigmas, args.alpha,
                 args.reach_chance)


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
                             "(scripts/gpubench-tools gate confirms its changes this way)")
    parser.add_argument("--changed-filter", type=Path, metavar="FILE",
                        help="also write FILE: a gpubench --benchmark_filter, on one line, "
                             "selecting the benchmarks found SLOWER or FASTER, or their whole "
                             f"families where those take more than the {MAX_FILTER_CHARS} "
                             "characters a filter holds; empty where none is "
                             "(scripts/gpubench-tools gate names with it what it confirms)")
    parser.add_argument("--new-runs", type=run_count, metavar="N",
                        help="exit 2 where N runs of NEW against BASE's can give no p below "
                             "--alpha, so that no benchmark could be found SLOWER (scripts/"
                             "gpubench-tools gate checks its GPUBENCH_RUNS and "
                             "GPUBENCH_CONFIRM_RUNS so, before its runs)")
    parser.add_argument("--missing-fails", action="store_true",
                        help=f"in a regression check, exit {MISSING_FROM_NEW} where NEW lacks "
                             "benchmarks of BASE (that --filter finds), naming them in one line "
                             "(scripts/gpubench-tools gate asks for it: a benchmark no longer run "
                             "passes no check)")
    parser.add_argument("--accept-unresolved", action="store_true",
                        help="in a regression check, let UNRESOLVED benchmarks pass (exit 0 "
                             "where none is SLOWER); the verdict line still counts them")
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
    try:
        if args.changed_filter is not None:
            refuse_output_over_input(args.changed_filter, [args.baseline, args.contender]
                                     + ([args.confirm] if args.confirm is not None else []))
        base, cont = load_pair(args.baseline, args.contender, args.filter)
        comparison = compare(base, cont, rules_from(args), args.report, args.filter,
                             args.accept_unresolved)
        if not comparison.checkable and not args.report:
            # The gate reads the status, and shows the line where it checks its baseline.
            script_error(SCRIPT, different_setup_line(comparison))
            write_stdout(render_comparison(comparison, args.markdown, args.only_changed))
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
            changed = changed_filter(r.name for r in comparison.rows
                                     if r.verdict in CHANGE_ORDER)
            write_output(args.changed_filter, f"{changed}\n" if changed else "")
        write_stdout(render_comparison(comparison, args.markdown, args.only_changed))
    except (GpubenchJsonError, OSError) as error:
        return script_error(SCRIPT, error)
    except FilterError as error:
        return script_error(SCRIPT, f"--filter={error}")
    return comparison.exit_status


if __name__ == "__main__":
    sys.exit(main())
