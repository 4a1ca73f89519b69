#!/usr/bin/env python3
"""How often gpubench-tools fleet flags healthy GPUs, and finds a slow one, on fleets built from
real separate processes.

    python3 tools/fleet_trust.py [--seeds=20] [--sizes=64,512] [--processes=1,3,5,6,8] [--jobs=N]

Each fleet GPU is K real processes of the default suite (scripts/tests/fleet_processes.py: 63 on
four H200 cards, 21 on one H100), its card's median taken out so that only run-to-run noise is
left: K distinct processes of the card drawn at random for each GPU, GPUs drawn independently
(two GPUs may share processes), and with K > 1 the GPU's figures the median of its K processes,
as `fleet --processes-per-gpu K` combines them (models/fleet/processes.py). Every GPU shares one
context (one host, driver and build), so the fleet is one group. The thresholds the rule takes
from healthy processes (the limits file's `process_losses`, and for K > 1 their
`median_loss_pct` of K) are built, for each fleet, from the processes of the other cards alone
(H200: the three other cards; H100: the four H200 cards): no GPU is judged by a threshold its own
process helped set. With K > 1 the fleet's card is one holding 2K processes or more, so that two
GPUs' medians are not mostly the same processes. Per model, fleet size and K, over --seeds
seeds: false GPUs per 1,000 healthy, noise-only fleets on which `--fail-on-outlier` would exit 0
(no GPU flagged slower than its group), and for each planted path, the trials in which a GPU
made 5% slower on every size of that path is flagged (and no other GPU). Floors are not judged:
the processes are scaled to a reference, and the committed floors are built from the same
processes.
results/fleet/README.md names the command that wrote results/fleet/trust.txt.
"""

import argparse
import collections
import dataclasses
import functools
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT / "scripts" / "tests")]

from gpubench_tools.cli.options import require_packages  # noqa: E402

require_packages("fleet_trust.py", "numpy", "scipy")

import numpy as np  # noqa: E402

import fleet_processes as fp  # noqa: E402 (after the path it needs)
from gpubench_tools.cli.options import (  # noqa: E402
    OneLineArgumentParser,
    positive_finite,
    script_error,
    whole_number,
)
from gpubench_tools.models.fleet.groups import group_gpus  # noqa: E402
from gpubench_tools.models.fleet.limits import judge_floors  # noqa: E402
from gpubench_tools.models.fleet.outliers import Rule, judge  # noqa: E402
from gpubench_tools.models.fleet.processes import median_gpu  # noqa: E402
from gpubench_tools.models.limits import add_processes, process_losses  # noqa: E402
from gpubench_tools.reading.fleet.records import Gpu, result_found  # noqa: E402
from gpubench_tools.reading.results import Benchmark  # noqa: E402
from gpubench_tools.reading.result_file import loads  # noqa: E402
from gpubench_tools.writing.outputs import StdoutError, write_stdout  # noqa: E402

SCRIPT = "fleet_trust.py"
MODELS = ("h200", "h100")

# The paths a loss is planted on: every benchmark whose name starts so (every size, every sweep).
PATHS = ("copy/DtoH/pinned/async/", "saxpy/driver/", "copy/HtoD/pinned/async/")
LOSS = 0.05


@functools.lru_cache(maxsize=None)
def process_gpus(model: str) -> list[tuple[int, Gpu]]:
    """(card, GPU) of each process, in one context: the first process's."""
    found = fp.processes(model)
    context = found[0][1]["context"]
    gpus = []
    for number, (card, doc) in enumerate(found):
        text = json.dumps({"context": context, "benchmarks": doc["benchmarks"]})
        name = f"card{card}_process{number}.json"
        gpus.append((card, result_found(name, loads(text, Path(name))).gpus[0]))
    return gpus


def slowed(bench: Benchmark, factor: float) -> Benchmark:
    """The benchmark of a GPU factor x as fast: rates x factor, times / factor."""
    def scale(values: dict[str, float]) -> dict[str, float]:
        return {k: (v * factor if k.endswith("per_second") else v / factor
                    if k in ("real_time", "cpu_time") else v) for k, v in values.items()}
    return dataclasses.replace(bench, values=scale(bench.values),
                               repetitions=[scale(r) for r in bench.repetitions])


def fleet(pool: list[Gpu], size: int, processes: int, rng: np.random.Generator) -> list[Gpu]:
    """`size` GPUs, each the median of `processes` distinct processes of the pool (one: the
    process itself)."""
    gpus = []
    for i in range(size):
        if processes == 1:
            gpu = pool[int(rng.integers(0, len(pool)))]
        else:
            gpu = median_gpu([pool[p] for p in rng.choice(len(pool), processes, replace=False)])
        gpus.append(dataclasses.replace(gpu, host=f"node{i:04d}", uuid=f"GPU-{i:08x}",
                                        source=f"node{i:04d}.json"))
    return gpus


def flagged(gpus: list[Gpu], rule: Rule, limits: list, losses: dict[str, float]) -> set[str]:
    """Hosts of the GPUs fleet flags: slower than their group, or below their floor."""
    groups = group_gpus(gpus)
    for group in groups:
        if len(group.gpus) >= rule.min_gpus:
            judge(group, rule, losses)
    below = judge_floors(gpus, limits, rule.corroborate)
    return {f.gpu.host for g in groups for f in g.flags} | {b.gpu.host for b in below}


@functools.lru_cache(maxsize=None)
def losses_without(model: str, card: int | None, count: int) -> dict[str, float]:
    """The process losses (models/limits.py) of every card of the model but `card`, as
    fractions: of a single process, or of the median of `count` processes (median_loss_pct)."""
    processes: dict = {}
    host_paced = set()
    for number, gpu in process_gpus(model):
        if number != card:
            for name, bench in gpu.benchmarks.items():
                add_processes(processes, (str(number), ""), gpu.source, name, bench, 1)
                if bench.host_paced:
                    host_paced.add(name)
    # As fleet reads a limits file (models/fleet/limits.py, Limits.losses_of): a benchmark
    # without a loss of the median of `count` is judged by a single process's.
    return {name: entry["median_loss_pct"].get(str(count), entry["loss_pct"]) / 100
            if count > 1 else entry["loss_pct"] / 100
            for name, entry in process_losses(processes, host_paced).items()}


def held_cards(model: str, count: int) -> list[int]:
    """The cards whose processes make a fleet of GPUs of `count` processes each: those holding
    2 x `count` processes or more, so that two GPUs' medians are not mostly the same processes."""
    held = collections.Counter(card for card, _ in process_gpus(model))
    return sorted(card for card, n in held.items() if n >= 2 * count)


def one_seed(model: str, size: int, seed: int, rule: Rule) -> dict[str, int]:
    """One noise-only fleet of the seed and, per path, the same fleet with one GPU slowed:
    (false GPUs, whether the fleet is clean, per path whether the slowed GPU alone is flagged)."""
    gpus = process_gpus(model)
    cards = held_cards(model, rule.processes_per_gpu)
    rng = np.random.default_rng(seed)
    # The held-out card: the fleet's processes are its own, the thresholds the others'.
    held = cards[seed % len(cards)]
    losses = losses_without("h200", held if model == "h200" else None, rule.processes_per_gpu)
    pool = [gpu for card, gpu in gpus if card == held]
    healthy = fleet(pool, size, rule.processes_per_gpu, rng)
    found = flagged(healthy, rule, [], losses)
    counts = {"false": len(found), "clean": int(not found)}
    for path in PATHS:
        sick = list(healthy)
        victim = int(rng.integers(0, size))
        sick[victim] = dataclasses.replace(sick[victim], benchmarks={
            name: slowed(bench, 1 - LOSS) if name.startswith(path) else bench
            for name, bench in sick[victim].benchmarks.items()})
        counts[path] = int(flagged(sick, rule, [], losses) == {sick[victim].host})
    return counts


def trials(model: str, size: int, seeds: int, rule: Rule, jobs: int) -> dict[str, int]:
    """Counts over `seeds` fleets of `size` GPUs of the model, `jobs` processes at a time."""
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(one_seed, *zip(*[(model, size, seed, rule)
                                                  for seed in range(seeds)])))
    return {key: sum(r[key] for r in results) for key in results[0]}


# Bounds that keep a run finite and its pool of workers one the machine can start.
SEEDS = whole_number(1, 100_000)
JOBS = whole_number(1, 1024)
COUNT = whole_number(1, 1_000_000)  # GPUs of a fleet, or processes per GPU


def whole_numbers(text: str) -> list[int]:
    """Comma-separated counts (COUNT): 64,512."""
    try:
        return [COUNT(part) for part in text.split(",")]
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"must be whole numbers from 1 to 1,000,000, "
                                         f"comma-separated, not {text!r}") from None


def models(text: str) -> list[str]:
    """Comma-separated models with committed processes: h200,h100."""
    named = text.split(",")
    if not set(named) <= set(MODELS):
        raise argparse.ArgumentTypeError(f"must name models of {', '.join(MODELS)}, "
                                         f"comma-separated, not {text!r}")
    return named


def main(argv: list[str] | None = None) -> int:
    parser = OneLineArgumentParser(prog=SCRIPT, description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=SEEDS, default=20)
    parser.add_argument("--sizes", type=whole_numbers, default=[64, 512])
    parser.add_argument("--models", type=models, default=list(MODELS))
    parser.add_argument("--processes", type=whole_numbers, default=[1, 3, 5, 6, 8],
                        help="processes per GPU: per K a line of each model and size (1,3,5,6,8)")
    parser.add_argument("--margin", type=positive_finite, default=Rule().margin_pct)
    parser.add_argument("--jobs", type=JOBS, default=min(os.cpu_count() or 1, 1024))
    args = parser.parse_args(argv)
    rules = [(count, dataclasses.replace(Rule(), margin_pct=args.margin, processes_per_gpu=count))
             for count in args.processes]
    try:
        for _, rule in rules:
            write_stdout(f"Rule: {rule.describe()}.\n")
        for model in args.models:
            for size in args.sizes:
                for count, rule in rules:
                    cards = len(held_cards(model, count))
                    if not cards:
                        return script_error(SCRIPT, f"no {model} card holds {2 * count} "
                                                    f"processes, for GPUs of {count} processes "
                                                    "each")
                    write_stdout(line(model, size, count, cards,
                                      trials(model, size, args.seeds, rule, args.jobs),
                                      args.seeds))
    except StdoutError as error:
        return script_error(SCRIPT, error)
    return 0

def line(model: str, size: int, count: int, cards: int, c: dict[str, int], seeds: int) -> str:
    per_1000 = 1000 * c["false"] / (size * seeds)
    found = ", ".join(f"{path.rstrip('/')} {c[path]} of {seeds}" for path in PATHS)
    each = ("" if count == 1 else
            f", {count} processes per GPU (cards of {2 * count} or more: {cards})")
    return (f"{model.upper()} x{size}{each}: {c['false']} false GPUs in {size * seeds} "
            f"healthy ({per_1000:.2f} per 1,000); --fail-on-outlier exits 0 on {c['clean']} of "
            f"{seeds} noise-only fleets; {LOSS:.0%} slower on one path, that GPU alone flagged: "
            f"{found}\n")


if __name__ == "__main__":
    sys.exit(main())
