"""Each GPU against the others of its group, every benchmark judged against its own noise.

A group is the GPUs of one GPU model, driver version, gpubench version and host CPU, measured
alike (settings.MEASUREMENT_SETTINGS: a run given another --benchmark_min_time, say), each read
for what it means (models/fleet/identity.py, groups.py): a GPU is compared only with its like.
A benchmark is judged by the facts most of the group's GPUs give of its figure, its unit, which
way is better and whether the host paces it (models/fleet/agreement.py); a GPU giving others is
named, not judged on it. Per benchmark of a group of --min-gpus or more, each GPU's speed
is its figure over the benchmark's reference, the group median (the inverse for times), and its
loss is 1 - speed. The benchmark's noise is the larger of the group's robust spread (1.4826 x
the median absolute deviation of the speeds, a standard deviation for normal noise) and, where
the results hold gpubench's `noise_pct`, its median over the group. noise_pct is 100 x 1.4826 x
the median absolute deviation of the run's batch times over their median: the same robust
spread, of one batch, relative, so a fraction of a speed as much as of a time. A benchmark flags
a GPU whose loss is over max(margin, k x noise): device-timed figures with --k and --margin,
host-paced ones (Benchmark.host_paced: gpubench's host_timed, or pageable memory) with the wider
--host-k and --host-margin.

Where a device-timed benchmark's speeds fall in two parts of --min-gpus GPUs or more each, no
GPU within the widest break between them and that break wider than the margin and than k x the
noise within the parts (their pooled robust spread, or the runs' noise_pct where larger), the
group median lies between two levels and is neither's: with 8 of 16 GPUs 8% slow, each part is
4% from it, close to the 3% margin. There the benchmark's reference is the median of the faster part
and its noise that within the parts, so the slower part is judged against what its like reach: a
fault slows a GPU, it does not speed one up. (Fewer slow GPUs than half leave the median in the
faster level.) Host-timed figures are not split: one host's repetitions of a launch submit fall
in levels already, and split fleets built of them (scripts/tests/fleet_builder.py) with no GPU
slowed.

A GPU is flagged on a sweep (a benchmark name less its argument) when --corroborate of the
sweep's benchmarks flag it (all of them where a device-timed sweep has fewer): a fault slows a
path at every size. A host-timed benchmark always needs --corroborate: one slow repetition of it
is what a busy host does to one run (on the H200 VM, a module load took 1.25x and 1.37x its
median in 2 repetitions of 10, results/h200/comparison/ci_new_*.json; a launch submit 2.33x in 1
of 10, results/h200/stability/launch_submit_interleaved_10rep.json). So does a benchmark that
splits: a figure can fall in two levels in one GPU's own runs (one H200's bidirectional pinned
copies of 256 MiB moved 83 to 100 GB/s,
results/h200/stability/copy_64m_256m_interleaved_10rep.json), and then splits fleets of pure
noise.

A sweep flags a GPU only where, at half its sizes or more, the GPU's speed is below
(1 - the benchmark's process loss) ** rule.process_headroom: with the default 2, twice as far
below the median as the largest loss a healthy separate process of the GPU model showed against
its card's median, about twice the loss where it is small (a process at 0.97 gives 0.94) and
never past the speed of a GPU that ran (one at 0.5 gives 0.25) (the limits file's process_losses,
models/limits.py; sizes without one do not count). A whole process lands on a level of its own,
often at every size of a sweep, and neither the repetitions of one process (noise_pct) nor the
spread of a fleet whose GPUs share few levels holds it. The headroom is room for cards not
measured: a process of one H200 card, its losses over a sweep's sizes each a share of the largest
of the three other cards' processes, reaches a median share of 1.67 (tools/fleet_trust.py
measures what the rule costs and finds, docs/cluster.md).
"""

from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from gpubench_tools.models.fleet.agreement import (
    Disagreement,
    FigureFacts,
    agreed_facts,
    figure_facts,
)
from gpubench_tools.reading.facts import Metric, split_name
from gpubench_tools.reading.fleet.records import Gpu

MAD_TO_SIGMA = 1.4826  # the MAD of a normal distribution is 0.6745 sigma

# GPU model, driver, gpubench version, host CPU, measurement settings, as the report shows them
# (models/fleet/identity.py: PARTS, shown_key)
GroupKey = tuple[str, str, str, str, str]


@dataclass(frozen=True)
class Rule:
    k: float = 5.0
    margin_pct: float = 3.0
    host_k: float = 6.0
    host_margin_pct: float = 15.0
    corroborate: int = 2
    min_gpus: int = 4
    process_headroom: float = 2.0
    processes_per_gpu: int = 1  # each GPU's figures the median of this many processes

    def describe(self) -> str:
        each = ("" if self.processes_per_gpu == 1 else
                f"each GPU the median of {self.processes_per_gpu} processes, ")
        healthy = ("a healthy process" if self.processes_per_gpu == 1 else
                   f"the median of {self.processes_per_gpu} healthy processes")
        losses = ("process_losses" if self.processes_per_gpu == 1 else
                  f"process_losses' median_loss_pct {self.processes_per_gpu}")
        return (f"{each}a benchmark flags a GPU slower than its group's median (its faster part's "
                f"where a device-timed figure splits in two parts of {self.min_gpus} GPUs or "
                f"more) by more than "
                f"max({self.margin_pct:g}%, {self.k:g} x its noise), a host-timed one by more "
                f"than max({self.host_margin_pct:g}%, {self.host_k:g} x its noise); a GPU is "
                f"flagged on a sweep where {self.corroborate} of its sizes flag it and half its "
                f"sizes or more are below (the slowest speed of {healthy}, the limits "
                f"file's {losses}) ** {self.process_headroom:g}")


@dataclass(frozen=True)
class Flag:
    gpu: Gpu
    benchmark: str
    value: float
    median: float  # the reference: the group's median, or its faster part's (faster_part)
    faster: int | None  # where the group splits (faster_part): the GPUs of its faster part
    unit: str
    speed: float  # relative to the median, 1 = median, < 1 slower
    threshold: float  # the loss (1 - speed) over which the benchmark flags a GPU
    host_timed: bool


@dataclass
class Group:
    key: GroupKey
    gpus: list[Gpu]
    benchmarks: list[str] = field(default_factory=list)  # compared: on >= min_gpus GPUs
    speed: np.ndarray = field(default_factory=lambda: np.empty((0, 0)))  # gpus x benchmarks
    thresholds: dict[str, float] = field(default_factory=dict)
    splits: dict[str, int] = field(default_factory=dict)  # benchmark: GPUs of its faster part
    host_timed: dict[str, bool] = field(default_factory=dict)
    flags: list[Flag] = field(default_factory=list)
    uncorroborated: int = 0  # benchmarks that flagged a GPU no other size of its sweep did
    # benchmarks that flagged a GPU whose sweep lost no more than a healthy process's allows
    within_process: int = 0
    # GPUs giving other facts of a benchmark's figure than the group: not judged on it.
    disagreements: list[Disagreement] = field(default_factory=list)

    @property
    def flagged(self) -> list[Gpu]:
        return list({flag.gpu.uuid: flag.gpu for flag in self.flags}.values())

    @property
    def disagreeing(self) -> list[Gpu]:
        return list({d.gpu.uuid: d.gpu for d in self.disagreements}.values())


@lru_cache(maxsize=1 << 16)
def sweep(name: str) -> str:
    """A benchmark's name less its argument (a number or key:number, as a file without facts
    is read): the benchmarks a fault would slow alike. Cached: a fleet asks it of every GPU's
    every benchmark, of a few hundred names."""
    parts = split_name(name, None)
    if parts.argument is None:
        return name
    device = "" if parts.device is None else f"/device:{parts.device}"
    return "/".join(p for p in (parts.family, parts.series) if p) + device


@dataclass
class Column:
    """What judgement reads of one benchmark, per GPU that ran it: its row in the group, the
    facts of its figure, its figure by those facts, and gpubench's noise_pct (nan where its
    result has none). Numbers in arrays: a fleet's columns hold millions."""
    rows: array = field(default_factory=lambda: array("l"))
    facts: list[FigureFacts] = field(default_factory=list)
    values: array = field(default_factory=lambda: array("d"))
    noise: array = field(default_factory=lambda: array("d"))


def columns(gpus: list[Gpu]) -> dict[str, Column]:
    """Per benchmark, in the order the GPUs first name them, its Column. Read GPU by GPU: a GPU's
    benchmarks lie together in memory, and reading thousands of GPUs benchmark by benchmark
    jumps between them, at a cost that grows faster than the fleet."""
    found: dict[str, Column] = {}
    said: dict[FigureFacts, FigureFacts] = {}  # one object per facts: compared by identity first
    for row, gpu in enumerate(gpus):
        for name, bench in gpu.benchmarks.items():
            column = found.get(name)
            if column is None:
                column = found[name] = Column()
            facts = figure_facts(bench)
            column.rows.append(row)
            column.facts.append(said.setdefault(facts, facts))
            column.values.append(bench.values[facts.metric.key] * facts.metric.scale)
            noise = bench.noise_pct
            column.noise.append(np.nan if noise is None else noise)
    return found


def run_noise(column: Column) -> float:
    """The median over the group of gpubench's noise_pct (each GPU's: the median over its
    repetitions), as a fraction; 0 where no result has it."""
    noise = np.frombuffer(column.noise)
    noise = noise[np.isfinite(noise)]
    return float(np.median(noise)) / 100 if noise.size else 0.0


def relative(values: np.ndarray, reference: float, metric: Metric) -> np.ndarray:
    """Speeds: values over reference, the inverse for times (nan where a GPU has none)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return values / reference if metric.bigger_is_better else reference / values


def faster_part(speeds: np.ndarray, min_part: int, k: float, margin: float,
                floor: float) -> tuple[np.ndarray, float] | None:
    """Where speeds fall in two parts of min_part or more each: (the faster part's mask over
    speeds, the noise within the parts). The parts meet at the widest break between neighbouring
    speeds that leaves min_part on each side; they are two where no speed lies within that
    break and it is wider than margin and than k x the noise within the parts, the larger of
    their pooled robust spread (each speed about its own part's median) and floor (the runs' own
    noise). None where the speeds are one part, or one is infinite (a time of 0)."""
    ordered = np.sort(speeds)
    if len(ordered) < 2 * min_part or not np.isfinite(ordered[-1]):
        return None
    gaps = np.diff(ordered)  # gaps[j]: between the slower part ordered[:j + 1] and the rest
    cut = min_part - 1 + int(np.argmax(gaps[min_part - 1:len(ordered) - min_part]))
    slower, faster = ordered[:cut + 1], ordered[cut + 1:]
    within = MAD_TO_SIGMA * float(np.median(np.concatenate(
        [np.abs(slower - np.median(slower)), np.abs(faster - np.median(faster))])))
    noise = max(within, floor)
    if gaps[cut] <= max(margin, k * noise):
        return None
    return speeds >= faster[0], noise


def judge(group: Group, rule: Rule, process_losses: dict[str, float] | None = None,
          alike: Callable[[str], str] = sweep) -> None:
    """Fills the group's benchmarks, speed, thresholds, flags, uncorroborated and within_process;
    process_losses: per benchmark, the largest loss of a healthy process (a fraction). `alike`
    names the benchmarks a fault slows alike, which corroborate each other: a GPU's sweep by
    default; every copy of a pair of GPUs for models/fleet/peer_pairs.py."""
    process_losses = process_losses or {}
    # (GPU row, sweep): whether each size's loss passes the headroom over its process loss
    beyond_process: dict[tuple[int, str], list[bool]] = {}
    judged, speeds, candidates = [], [], []
    sweep_sizes: dict[tuple[int, str], int] = {}  # (GPU row, sweep): benchmarks it ran
    for name, column in columns(group.gpus).items():
        facts, disagreements = agreed_facts(group.gpus, name,
                                            dict(zip(column.rows, column.facts)))
        group.disagreements += disagreements
        if facts is None:
            continue
        metric, host_timed = facts.metric, facts.host_paced
        # A GPU giving the agreed facts has its figure by them; the others are not judged on it.
        values = np.full(len(group.gpus), np.nan)
        agreeing = [i for i, its in enumerate(column.facts) if its is facts or its == facts]
        values[np.frombuffer(column.rows, dtype=np.int_)[agreeing]] = \
            np.frombuffer(column.values)[agreeing]
        present = np.isfinite(values)
        if present.sum() < rule.min_gpus:
            continue
        median = float(np.median(values[present]))
        if median <= 0:
            continue
        speed = relative(values, median, metric)
        k, margin = ((rule.host_k, rule.host_margin_pct) if host_timed
                     else (rule.k, rule.margin_pct))
        floor = run_noise(column)
        # 1.4826 x the median absolute deviation of the speeds about their median, 1.
        noise = max(MAD_TO_SIGMA * float(np.median(np.abs(speed[present] - 1))), floor)
        split = None if host_timed else faster_part(speed[present], rule.min_gpus, k,
                                                    margin / 100, floor)
        if split is not None:
            faster, noise = split
            median = float(np.median(values[present][faster]))
            speed = relative(values, median, metric)
            group.splits[name] = int(faster.sum())
        threshold = max(margin / 100, k * noise)
        judged.append(name)
        speeds.append(speed)
        group.thresholds[name] = threshold
        group.host_timed[name] = host_timed
        for row in np.flatnonzero(present):
            sweep_sizes[(row, alike(name))] = sweep_sizes.get((row, alike(name)), 0) + 1
            if (healthy := process_losses.get(name)) is not None:
                beyond_process.setdefault((row, alike(name)), []).append(
                    float(speed[row]) < (1 - healthy) ** rule.process_headroom)
        with np.errstate(invalid="ignore"):
            flagged = present & (1 - speed > threshold)
        candidates += [(int(row), Flag(group.gpus[row], name, float(values[row]), median,
                                       group.splits.get(name), metric.unit, float(speed[row]),
                                       threshold, host_timed))
                       for row in np.flatnonzero(flagged)]
    per_sweep: dict[tuple[int, str], int] = {}
    for row, flag in candidates:
        key = (row, alike(flag.benchmark))
        per_sweep[key] = per_sweep.get(key, 0) + 1
    for row, flag in candidates:
        key = (row, alike(flag.benchmark))
        # A split, as a host-timed figure, needs --corroborate sizes whatever its sweep holds: a
        # figure of two levels in one GPU's runs splits fleets of pure noise (docs/cluster.md).
        needed = (rule.corroborate if flag.host_timed or flag.faster is not None
                  else min(rule.corroborate, sweep_sizes[key]))
        beyond = beyond_process.get(key, [True])
        if per_sweep[key] < needed:
            group.uncorroborated += 1
        elif 2 * sum(beyond) < len(beyond):
            group.within_process += 1
        else:
            group.flags.append(flag)
    group.benchmarks = judged
    group.speed = np.array(speeds).T if speeds else np.empty((len(group.gpus), 0))
