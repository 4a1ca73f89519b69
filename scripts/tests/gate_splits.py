#!/usr/bin/env python3
"""How often the CI gate is wrong on one build: random splits of a recording of many runs.

  gate_splits.py RECORDING.json [--base N] [--new N] [--confirm N] [--trials T] [--seed S]

RECORDING.json holds separate runs of one build (gpubench-tools record with a large GPUBENCH_RUNS,
or gpubench-tools merge of many runs), one repetition per run. Each trial draws two disjoint sets of
runs at random, --base for the baseline (5 by default; the gate's committed baseline holds 15 or
more) and --new for the candidate (5, as the gate records), and compares them with
gpubench-tools compare's default rules, twice: as they are (an A/A pair: every benchmark should be
SAME) and with plant_slowdowns.py's slowdowns planted into the candidate (every planted benchmark
should be SLOWER, every other one SAME). A planted benchmark that stays SAME is a miss; the miss is
honest where its report line gave a resolution at or above the planted change (the gate said it
could not see a change that small).

With --confirm N, each trial judges as gpubench-tools gate does: N more runs, drawn apart from both
sides (planted too where the candidate is), judge each benchmark found SLOWER or FASTER again on
their own (gpubench-tools compare --confirm), and the change stands where they give the same
verdict. A planted slowdown missed that way is counted apart: the report says it was seen and not
confirmed.

It prints how many trials the gate passed on the A/A pair, the wrong verdicts of each kind and
the benchmarks behind most of them, and how many plants it caught in each family, by how much
they were planted. Exit 0 when every verdict of every trial is right, 1 otherwise, 2 for bad
usage or input.
"""

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gbench_builder import with_repetitions  # noqa: E402
from plant_slowdowns import plant  # noqa: E402

from gpubench_tools.cli import compare as cmp  # noqa: E402
from gpubench_tools.cli.options import OneLineArgumentParser, script_error  # noqa: E402
from gpubench_tools.models.comparison import (  # noqa: E402
    SAME,
    SLOWER,
    Row,
    Rules,
    compare,
    confirm_rows,
)
from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.reading.result_file import load_with_document, loads  # noqa: E402
from gpubench_tools.reading.results import Result

SCRIPT = "gate_splits.py"
SHOWN = 8  # benchmarks named under each kind of wrong verdict


def runs_in(doc: dict) -> int:
    return 1 + max((e["repetition_index"] for e in doc["benchmarks"]
                    if e.get("run_type") == "iteration"), default=-1)


def result(doc: dict, name: str) -> Result:
    return loads(json.dumps(doc), Path(name))


def plant_kind(name: str, factor: float) -> str:
    """A plant's kind, as the report counts them: its family and how much slower it was made."""
    return f"{name.split('/')[0]}, {factor:g}× slower"


def split_runs(draw: random.Random, runs: int, base: int, new: int,
               confirm: int) -> tuple[set[int], set[int], set[int]]:
    """One trial's draw: disjoint sets of `base`, `new` and `confirm` of the recording's `runs`
    runs (repetition indices), at random."""
    order = list(range(runs))
    draw.shuffle(order)
    return (set(order[:base]), set(order[base:][:new]),
            set(order[base + new:][:confirm]))


def gate(base: dict, new: dict, confirm: dict | None, rules: Rules) -> dict[str, Row]:
    """Each benchmark's row as the gate ends: the candidate judged, and where `confirm` is
    given, each change judged again on its runs alone, as gpubench-tools gate does."""
    base_result = result(base, "base")
    return gate_rows(base_result, result(new, "new"),
                     None if confirm is None else result(confirm, "confirm"), rules)


def gate_rows(base: Result, new: Result, confirm: Result | None,
              rules: Rules) -> dict[str, Row]:
    """`gate` on loaded results: a baseline loaded once judges many candidates."""
    rows = compare(base, new, rules).rows
    if confirm is not None:
        rows = confirm_rows(rows, base, confirm, rules)
    return {r.name: r for r in rows}


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = OneLineArgumentParser(prog=SCRIPT, description=__doc__.splitlines()[0])
    parser.add_argument("recording", type=Path, metavar="RECORDING.json")
    parser.add_argument("--base", type=int, default=5, help="runs on the baseline side")
    parser.add_argument("--new", type=int, default=5, help="runs on the candidate side")
    parser.add_argument("--confirm", type=int, default=0,
                        help="runs that judge each SLOWER or FASTER verdict again, as "
                             "gpubench-tools gate takes them (default 0: none)")
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        doc = load_with_document(args.recording)[1]  # one line for any check it fails
    except (GpubenchJsonError, OSError) as error:
        return script_error(SCRIPT, error)
    runs = runs_in(doc)
    if (min(args.base, args.new, args.trials) < 1 or args.confirm < 0
            or args.base + args.new + args.confirm > runs):
        return script_error(SCRIPT, f"{args.recording} holds {runs} runs: --base and --new "
                                    "must be at least 1, --confirm at least 0, and the three "
                                    "together at most that; --trials at least 1")
    rules = cmp.rules_from(cmp.parse_args(["base.json", "new.json"]))
    draw = random.Random(args.seed)
    failed_trials = 0
    false_alarms, misses, dishonest, unconfirmed, wrong_planted = (Counter() for _ in range(5))
    planted, caught = Counter(), Counter()  # by kind of plant (plant_kind)
    try:
        for _ in range(args.trials):
            base_runs, new_runs, confirm_runs = split_runs(draw, runs, args.base, args.new,
                                                           args.confirm)
            base = with_repetitions(doc, base_runs.__contains__)
            new = with_repetitions(doc, new_runs.__contains__)
            confirm = (with_repetitions(doc, confirm_runs.__contains__) if args.confirm
                       else None)
            rows = gate(base, new, confirm, rules).values()
            flagged = [r.name for r in rows if r.verdict != SAME]
            false_alarms.update(flagged)
            failed_trials += bool(flagged)
            slowed, factors = plant(new)
            planted.update(plant_kind(name, f) for name, f in factors.items())
            slowed_confirm = plant(confirm)[0] if confirm is not None else None
            for row in gate(base, slowed, slowed_confirm, rules).values():
                if row.name not in factors:
                    if row.verdict != SAME:
                        wrong_planted[row.name] += 1
                elif row.verdict == SLOWER:
                    caught[plant_kind(row.name, factors[row.name])] += 1
                else:
                    misses[row.name] += 1
                    if row.confirmed is False:
                        unconfirmed[row.name] += 1
                    elif row.resolution_pct < (factors[row.name] - 1) * 100:
                        dishonest[row.name] += 1
    except GpubenchJsonError as error:
        return script_error(SCRIPT, error)

    def most(counter: Counter, what: str) -> str:
        return "".join(f"\n  {name}: {what} in {n} of {args.trials}"
                       for name, n in counter.most_common(SHOWN))

    confirm = (f", changes confirmed by {args.confirm} more run(s) as gpubench-tools gate does"
               if args.confirm else "")
    print(f"{args.recording}: {runs} runs; {args.trials} trials of {args.base} runs against "
          f"{args.new} others, drawn at random (seed {args.seed}), gpubench-tools compare's "
          f"default rules{confirm}")
    print(f"A/A: the gate passed {args.trials - failed_trials} of {args.trials} trials; "
          f"{sum(false_alarms.values())} verdicts not SAME" + most(false_alarms, "not SAME"))
    missed, below, seen = (sum(c.values()) for c in (misses, dishonest, unconfirmed))
    planted_total = sum(planted.values())
    print(f"planted: {planted_total - missed} of {planted_total} planted slowdowns caught; "
          f"{missed} missed, {missed - below - seen} of them with a resolution at or above the "
          f"planted change, {below} below it"
          + (f", {seen} seen and not confirmed" if args.confirm else "")
          + most(dishonest, "missed below its resolution")
          + most(misses - dishonest - unconfirmed, "missed at or above its resolution")
          + most(unconfirmed, "seen, not confirmed"))
    print("planted, by family and how much slower:" + "".join(
        f"\n  {kind}: {caught[kind]} of {n} caught" for kind, n in sorted(planted.items())))
    print(f"unplanted benchmarks not SAME beside the plants: {sum(wrong_planted.values())}"
          + most(wrong_planted, "not SAME"))
    wrong = sum(false_alarms.values()) + missed + sum(wrong_planted.values())
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
