#!/usr/bin/env python3
"""The gate's power: how often it catches a planted slowdown, and how often it cries wolf.

  tools/gate_power.py RECORDING... [--base 15] [--new 5] [--confirm 5] [--trials 40]
                      [--seed 1] [--plants 3,5,10,25,50] [--csv OUT.csv] [--rule FLAG ...]

RECORDING is one recording of separate runs of one build on one card (gpubench-tools record or
merge), or the result files of separate processes, merged here as gpubench-tools merge merges
them. Each trial draws disjoint runs at random (scripts/tests/gate_splits.py's draw, seed
--seed): --base for the baseline, --new for the candidate and --confirm for the runs that confirm
each change, as gpubench-tools gate records them (15 or more, GPUBENCH_RUNS 5, 5 more). Where the
recording holds fewer runs than the three together, the baseline takes what is left beside the
candidate and the confirming runs, and the first line says so.

Each trial judges the candidate as gpubench-tools gate does (compare, then each change judged
again on the confirming runs alone), once as drawn (A/A: every verdict should be SAME) and once
for each --plants percentage with every benchmark of the candidate and of the confirming runs
that much slower (times multiplied, rates divided, as the family's facts say which way is
better). A plant is caught where the gate ends SLOWER. The gate judges with compare's default
rules, or with each --rule flag given to compare (--rule=--host-threshold=5): what a rule would
catch and cost, on the same splits.

Prints a table, one row per family, timing (host-timed where the file says the host paces the
figure, host-timed over a reference where the figure is a host-timed cost over host work timed
in the same rounds, GPU-timed otherwise) and kind of figure, with the A/A verdicts not SAME and
the fraction caught at each planted percentage; --csv writes the counts behind it.
Deterministic given its inputs and seed. Exit 0, or 2 with one line for bad usage or an
unusable recording.
"""

import argparse
import csv
import random
import sys
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "scripts" / "tests"))

from gpubench_tools.cli.options import require_packages  # noqa: E402

require_packages("gate_power.py", "numpy", "scipy")

from gate_splits import gate_rows, result, runs_in, split_runs  # noqa: E402
from gbench_builder import with_repetitions  # noqa: E402

from gpubench_tools.cli import compare as cmp  # noqa: E402
from gpubench_tools.cli.options import (  # noqa: E402
    OneLineArgumentParser,
    script_error,
    script_output,
)
from gpubench_tools.models.comparison import SAME, SLOWER, Row, Rules  # noqa: E402
from gpubench_tools.models.merge import merge  # noqa: E402
from gpubench_tools.reading.errors import GpubenchJsonError  # noqa: E402
from gpubench_tools.reading.facts import split_name  # noqa: E402
from gpubench_tools.reading.result_file import load_with_document  # noqa: E402
from gpubench_tools.reading.results import Result  # noqa: E402

SCRIPT = "gate_power.py"
SHOWN = 8  # benchmarks named under the A/A verdicts not SAME
# Launch cases measured otherwise than a path's submit, throughput or roundtrip: named by the
# first component of their series.
LAUNCH_CASES = {"floor": "floor", "graph_nodes": "graph nodes", "module": "module loads",
                "gpu_gap": "GPU gap", "start_latency": "start latency", "paired": "paired",
                "persistent": "persistent roundtrip"}
LARGE_SAXPY = 1 << 20  # elements: below it a saxpy is mostly launch and clock levels


def figure_kind(row: Row) -> tuple[str, str, str]:
    """(family, timing, kind) of a compared benchmark, as the table groups it."""
    parts = split_name(row.name, None).series.split("/")
    family = row.family
    timing = ("host-timed over a reference" if row.host_referenced
              else "host-timed" if row.host_timed else "GPU-timed")
    if family == "launch":
        kind = LAUNCH_CASES.get(parts[0], parts[-1])
    elif family == "copy" and len(parts) >= 3:
        memory = parts[1] if parts[1] in ("pageable", "device") else "pinned"
        kind = f"{memory} {parts[2]}"
    elif family == "saxpy":
        argument = split_name(row.name, None).argument or 0
        kind = "from 2^20 elements" if argument >= LARGE_SAXPY else "below 2^20 elements"
    else:
        kind = parts[1] if len(parts) > 1 else parts[0]
    return family, timing, kind


@dataclass
class Group:
    """One row of the table: what the trials gave for the benchmarks of one kind."""
    benchmarks: set[str] = field(default_factory=set)
    aa_judged: int = 0  # benchmark verdicts in the A/A trials
    aa_not_same: int = 0
    planted: Counter = field(default_factory=Counter)  # by planted %
    caught: Counter = field(default_factory=Counter)


@dataclass
class Power:
    groups: dict[tuple[str, str, str], Group] = field(default_factory=dict)
    aa_failed_trials: int = 0
    aa_not_same: Counter = field(default_factory=Counter)  # by benchmark

    def count_aa(self, rows: dict[str, Row]) -> None:
        flagged = [r for r in rows.values() if r.verdict != SAME]
        self.aa_failed_trials += bool(flagged)
        self.aa_not_same.update(r.name for r in flagged)
        for row in rows.values():
            group = self.groups.setdefault(figure_kind(row), Group())
            group.benchmarks.add(row.name)
            group.aa_judged += 1
            group.aa_not_same += row.verdict != SAME

    def count_planted(self, rows: dict[str, Row], pct: float) -> None:
        for row in rows.values():
            group = self.groups.setdefault(figure_kind(row), Group())
            group.planted[pct] += 1
            group.caught[pct] += row.verdict == SLOWER


def parse_plants(text: str) -> list[float]:
    try:
        plants = [float(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of percentages: {text!r}") from None
    if not all(0 < p < 900 for p in plants):
        raise argparse.ArgumentTypeError(f"each percentage must lie above 0 and below 900: "
                                         f"{text!r}")
    return plants


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = OneLineArgumentParser(prog=SCRIPT, description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("recordings", type=Path, nargs="+", metavar="RECORDING",
                        help="one recording of separate runs, or the runs' result files")
    parser.add_argument("--base", type=int, default=15, help="baseline runs (default 15)")
    parser.add_argument("--new", type=int, default=5, help="candidate runs (default 5)")
    parser.add_argument("--confirm", type=int, default=5,
                        help="runs that confirm each change (default 5; 0: none)")
    parser.add_argument("--trials", type=int, default=40, help="random splits (default 40)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the draw (default 1)")
    parser.add_argument("--plants", type=parse_plants, default=[3, 5, 10, 25, 50],
                        metavar="PCT,...", help="slowdowns planted, in %% (default "
                        "3,5,10,25,50)")
    parser.add_argument("--csv", type=Path, metavar="OUT.csv", help="the counts as CSV")
    parser.add_argument("--rule", action="append", default=[], metavar="FLAG",
                        help="a gpubench-tools compare flag the gate judges with, e.g. "
                        "--rule=--host-threshold=5 (repeatable; default: compare's defaults)")
    return parser.parse_args(argv)


def recording(paths: list[Path]) -> dict:
    """The runs as one document, one repetition per run."""
    if len(paths) == 1:
        return load_with_document(paths[0])[1]
    return merge(paths)


def slower(side: Result, factor: float) -> Result:
    """`side` with every benchmark `factor` times slower in the figure the comparison judges
    it by (its family's first figure it carries, real time without one): multiplied where lower
    is better, divided where higher. What gbench_builder.scaled does to a file, done to the
    loaded result at once: every statistic the comparison takes (median, median absolute
    deviation over the median, the U test's ranks) moves alike."""
    def moved(values: dict[str, float] | None, key: str,
              higher: bool) -> dict[str, float] | None:
        if values is None or key not in values:
            return values
        return {**values, key: values[key] / factor if higher else values[key] * factor}

    benchmarks = {}
    for name, bench in side.benchmarks.items():
        key, higher = bench.metric.key, bench.metric.bigger_is_better
        benchmarks[name] = replace(
            bench, values=moved(bench.values, key, higher),
            repetitions=[moved(r, key, higher) for r in bench.repetitions],
            stddev=moved(bench.stddev, key, higher))
    return replace(side, benchmarks=benchmarks)


def measure(doc: dict, base: int, new: int, confirm: int, trials: int, seed: int,
            plants: list[float], rules: Rules) -> Power:
    """The trials' counts: each split judged as drawn and with each of `plants` (in %)."""
    draw, power = random.Random(seed), Power()
    for _ in range(trials):
        base_runs, new_runs, confirm_runs = split_runs(draw, runs_in(doc), base, new, confirm)
        base_side, new_side, confirm_side = (
            result(with_repetitions(doc, runs.__contains__), name) if runs else None
            for runs, name in ((base_runs, "base"), (new_runs, "new"),
                               (confirm_runs, "confirm")))
        power.count_aa(gate_rows(base_side, new_side, confirm_side, rules))
        for pct in plants:
            factor = 1 + pct / 100
            planted = [None if side is None else slower(side, factor)
                       for side in (new_side, confirm_side)]
            power.count_planted(gate_rows(base_side, *planted, rules), pct)
    return power


def fraction(caught: int, planted: int) -> str:
    return f"{100 * caught / planted:.1f}%" if planted else "—"


def totals(power: Power, key) -> dict[tuple, Group]:
    """The groups summed under `key` of (family, timing, kind)."""
    summed: dict[tuple, Group] = {}
    for kind, group in power.groups.items():
        total = summed.setdefault(key(kind), Group())
        total.benchmarks |= group.benchmarks
        total.aa_judged += group.aa_judged
        total.aa_not_same += group.aa_not_same
        total.planted += group.planted
        total.caught += group.caught
    return summed


def table(power: Power, plants: list[float]) -> list[str]:
    head = ["family", "timing", "kind", "benchmarks", "A/A not SAME",
            *(f"{p:g}% caught" for p in plants)]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]

    def row(label: tuple[str, str, str], group: Group) -> str:
        cells = [*label, str(len(group.benchmarks)),
                 f"{group.aa_not_same} of {group.aa_judged}",
                 *(fraction(group.caught[p], group.planted[p]) for p in plants)]
        return "| " + " | ".join(cells) + " |"

    for timing, group in sorted(totals(power, lambda k: k[1]).items()):
        lines.append(row(("all", timing, "all"), group))
    for (family, timing), group in sorted(totals(power, lambda k: k[:2]).items()):
        lines.append(row((family, timing, "all"), group))
    for label, group in sorted(power.groups.items()):
        lines.append(row(label, group))
    return lines


def report(power: Power, args: argparse.Namespace, doc: dict, base: int) -> str:
    runs = runs_in(doc)
    context = doc["context"]
    fitted = ("" if base == args.base else
              f" ({args.base} do not fit beside {args.new} + {args.confirm} in {runs} runs: "
              "the largest baseline they allow)")
    confirm = (f", each change confirmed on {args.confirm} more runs as gpubench-tools gate "
               "does" if args.confirm else ", no confirming runs")
    paths = args.recordings
    names = (" ".join(map(str, paths)) if len(paths) < 3 else
             f"{paths[0]} ... {paths[-1]} ({len(paths)} files)")
    lines = [
        f"{names}: {runs} runs of {context.get('gpu_name')} {context.get('gpu_uuid')}, "
        f"gpubench {context.get('gpubench_version')}",
        f"{args.trials} trials (seed {args.seed}) of {base} baseline runs{fitted} against "
        f"{args.new} candidate runs{confirm}, gpubench-tools compare's "
        + (f"rules with {' '.join(args.rule)}" if args.rule else "default rules"),
        f"A/A: the gate passed {args.trials - power.aa_failed_trials} of {args.trials} trials; "
        f"{sum(power.aa_not_same.values())} verdicts not SAME"
        + "".join(f"\n  {name}: not SAME in {n} of {args.trials}"
                  for name, n in power.aa_not_same.most_common(SHOWN)),
        "caught: planted slowdowns the gate ends SLOWER on, every benchmark planted at once; "
        "A/A not SAME: benchmark verdicts of the unplanted trials",
        "",
        *table(power, args.plants),
    ]
    return "\n".join(lines) + "\n"


def write_csv(path: Path, power: Power, plants: list[float]) -> None:
    """The counts behind the table, one line per family, timing and kind."""
    with path.open("w", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["family", "timing", "kind", "benchmarks", "aa_judged", "aa_not_same",
                         *(f"{column}_{p:g}pct" for p in plants
                           for column in ("planted", "caught"))])
        for (family, timing, kind), group in sorted(power.groups.items()):
            writer.writerow([family, timing, kind, len(group.benchmarks), group.aa_judged,
                             group.aa_not_same,
                             *(n for p in plants for n in (group.planted[p], group.caught[p]))])


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if min(args.new, args.trials) < 1 or args.base < 1 or args.confirm < 0:
        return script_error(SCRIPT, "--base, --new and --trials must be at least 1, "
                                    "--confirm at least 0")
    # A flag compare refuses is its one line on stderr and exit 2, before a recording is read.
    rules = cmp.rules_from(cmp.parse_args(["base.json", "new.json", *args.rule]))
    try:
        doc = recording(args.recordings)
    except (GpubenchJsonError, OSError) as error:
        return script_error(SCRIPT, error)
    runs = runs_in(doc)
    base = min(args.base, runs - args.new - args.confirm)
    if base < 2:
        return script_error(SCRIPT, f"{args.recordings[0]}: {runs} runs hold no baseline of 2 "
                                    f"or more runs beside {args.new} + {args.confirm}")
    try:
        power = measure(doc, base, args.new, args.confirm, args.trials, args.seed, args.plants,
                        rules)
        if args.csv is not None:
            write_csv(args.csv, power, args.plants)
    except (GpubenchJsonError, OSError) as error:
        return script_error(SCRIPT, error)
    return script_output(SCRIPT, report(power, args, doc, base))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
