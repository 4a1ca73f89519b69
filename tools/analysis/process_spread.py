#!/usr/bin/env python3
"""Which figures move little enough between processes for the gate to catch a change: per
family, timing and kind, each benchmark's spread between one card's separate runs, and the share
of them within the largest spread that lets the gate's runs catch each planted change.

  tools/analysis/process_spread.py RECORDING... [--base 15] [--new 5] [--confirm 5]
                                   [--plants 3,5,10,25,50]

RECORDING is as tools/gate_power.py takes it (one recording of separate runs, or the runs'
result files), grouped as it groups them, and --plants are its percentages, so that each column
stands beside gate_power.py's fraction caught at the same plant. A benchmark's spread is the
robust spread of its figure between the runs (1.4826 x the median absolute deviation over the
median, in %). The largest spread is that of a rule on the runs' medians under normal noise of
one spread per run: the gate compares the median of --new runs with that of --base runs, and a
change stands where the median of --confirm runs more shows it too, against the same baseline.
Each median's standard error is sqrt(pi/2) spreads over the square root of its runs, and the two
differences share the baseline's median. The rule's threshold is set so that both differences
pass it in 1 of 10,000 trials without a change; a change is caught in 95% of trials where it is
at least the change at which both pass it that often. A figure that spreads more cannot be held
to that by any such rule: the runs, not the rule, are what it lacks. Exit 0, or 2 with one line
for bad usage or an unusable recording.
"""

import math
import statistics
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "scripts" / "tests"))
sys.path.insert(0, str(ROOT / "tools"))

from gpubench_tools.cli.options import require_packages  # noqa: E402

require_packages("process_spread.py", "numpy", "scipy")

from gate_power import figure_kind, parse_plants, recording  # noqa: E402
from gate_splits import result, runs_in  # noqa: E402

from gpubench_tools.cli.options import (  # noqa: E402
    OneLineArgumentParser,
    script_error,
    script_output,
    whole_number,
)
from gpubench_tools.models.comparison import Rules, compare_benchmark  # noqa: E402
from gpubench_tools.reading.errors import GpubenchJsonError  # noqa: E402

SCRIPT = "process_spread.py"
FALSE_ALARM, POWER = 1e-4, 0.95
# Any rule judges timing alike: compare_benchmark is called only for the row's timing.
RULES = Rules(threshold=3.0, host_threshold=25.0, sigmas=2.0, alpha=0.01)


def gate_model(base: int, new: int, confirm: int) -> tuple[float, float]:
    """The docstring's model in units of one run's spread: the threshold both differences of
    medians pass in FALSE_ALARM of trials without a change, and the change at which both pass
    it in POWER of trials."""
    from scipy.optimize import brentq
    from scipy.stats import multivariate_normal

    scale = math.pi / 2  # a median's variance over a mean's, per run
    shared = scale / base
    both = multivariate_normal(mean=[0.0, 0.0], cov=[[scale / new + shared, shared],
                                                     [shared, scale / confirm + shared]])

    def both_pass(threshold: float, shift: float) -> float:
        return float(both.cdf([shift - threshold, shift - threshold]))

    threshold = brentq(lambda t: both_pass(t, 0.0) - FALSE_ALARM, 0.0, 50.0)
    return threshold, brentq(lambda s: both_pass(threshold, s) - POWER, 0.0, 100.0)


def spreads(doc: dict) -> dict[tuple[str, str, str], list[float]]:
    """Per (family, timing, kind), each benchmark's spread between the runs, in %."""
    found: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for bench in result(doc, "recording").benchmarks.values():
        spread = bench.robust_spread_pct(bench.metric)
        if spread is not None and math.isfinite(spread):
            found[figure_kind(compare_benchmark(bench, bench, RULES))].append(spread)
    return found


def table(found: dict[tuple[str, str, str], list[float]],
          limits: dict[float, float]) -> list[str]:
    lines = ["| family | timing | kind | benchmarks | spread: median | largest | "
             + " | ".join(f"{plant:g}%" for plant in limits) + " |",
             "| --- " * (6 + len(limits)) + "|"]
    totals: dict[str, list[float]] = defaultdict(list)
    for (_, timing, _), values in found.items():
        totals[timing].extend(values)
    rows = [(("all", timing, "all"), totals[timing]) for timing in sorted(totals)]
    rows += sorted(found.items())
    for (family, timing, kind), values in rows:
        shares = [100 * sum(v <= limit for v in values) / len(values) for limit in limits.values()]
        lines.append(f"| {family} | {timing} | {kind} | {len(values)} | "
                     f"{statistics.median(values):.2f}% | {max(values):.2f}% | "
                     + " | ".join(f"{share:.1f}%" for share in shares) + " |")
    return lines


def main(argv: list[str]) -> int:
    parser = OneLineArgumentParser(prog=SCRIPT, description=__doc__.splitlines()[0])
    parser.add_argument("recordings", type=Path, nargs="+", metavar="RECORDING")
    for option, runs in (("--base", 15), ("--new", 5), ("--confirm", 5)):
        parser.add_argument(option, type=whole_number(1, 1000), default=runs,
                            help=f"default {runs}")
    parser.add_argument("--plants", type=parse_plants, default=[3, 5, 10, 25, 50],
                        metavar="PCT,...", help="changes, in %% (default 3,5,10,25,50)")
    args = parser.parse_args(argv)
    try:
        doc = recording(args.recordings)
    except (GpubenchJsonError, OSError) as error:
        return script_error(SCRIPT, error)
    if runs_in(doc) < 2:
        return script_error(SCRIPT, f"{args.recordings[0]}: holds one run: a spread between "
                                    "runs needs two or more")
    change = gate_model(args.base, args.new, args.confirm)[1]
    limits = {plant: plant / change for plant in args.plants}
    card = f"{doc['context'].get('gpu_name', '?')} {doc['context'].get('gpu_uuid', '?')}"
    lines = [f"{runs_in(doc)} runs of {card}; with {args.base} baseline, {args.new} candidate "
             f"and {args.confirm} confirming runs a change is caught in 95% of trials, at 1 "
             f"false alarm in 10,000, only where the runs spread by at most 1/{change:.3f} of "
             "it: " + ", ".join(f"{plant:g}% within {limit:.2f}%"
                                for plant, limit in limits.items()),
             "each percentage column: the share of the benchmarks whose spread lies within that "
             "change's limit", "", *table(spreads(doc), limits)]
    return script_output(SCRIPT, "\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
