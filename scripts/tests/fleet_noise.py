#!/usr/bin/env python3
"""How often gpubench-tools fleet's rule flags a GPU in fleets of pure noise, and finds \
planted losses.

    python3 scripts/tests/fleet_noise.py [--fleets=100]

For each source set of fleet_builder (real H200 repetitions), judges --fleets noise-only fleets of
16 GPUs (seeds 0..N-1) with gpubench-tools fleet's default rule and the committed limits, and counts
the fleets in which any GPU is flagged (slower than its group, or below its floor); then plants a
10% loss of one device-timed sweep on one GPU and counts the fleets in which that GPU, and only it,
is flagged; then an 8% loss of that sweep on half the fleet (8 GPUs: the group median lies between
the two levels) and counts the fleets in which those 8, and only they, are flagged; last, noise-only
fleets with their copies at 256 MiB alone (a run given --sizes=256M), which can split in two
(bidirectional copies fall in two levels in one GPU's runs): it counts those where a benchmark
splits and those where a GPU is flagged. docs/cluster.md states what it prints.
"""

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # scripts/, run as a script

import fleet_builder as fb  # noqa: E402 (after the path it needs)
from gpubench_tools.models.fleet.groups import group_gpus
from gpubench_tools.models.fleet.limits import (
    Limits,
    default_limit_files,
    judge_floors,
    load_limits,
    process_losses_of,
)
from gpubench_tools.models.fleet.outliers import Rule, judge
from gpubench_tools.reading.fleet.records import Gpu, result_found
from gpubench_tools.reading.result_file import loads

# The device-timed sweep a loss is planted on, per source set.
SWEEPS: dict[tuple[str, ...], str] = {
    # DtoH: the 63 H200 processes copy host-to-device up to 4.3% below their card's median at
    # these sizes (results/limits/h200.json's process_losses), so a 10% loss from one process is
    # inside the rule's process headroom; device-to-host copies stay within 0.93%.
    fb.COPY_LAUNCH: "copy/DtoH/pinned/async",
    fb.CI_PAIR: "saxpy/driver",
    fb.PEER: "peer/ce/write/0to1",
}
ONE_SLOW, HALF_SLOW = 0.9, 0.92  # the speed of the planted losses
HALF = range(0, 16, 2)  # the GPUs of the half-fleet loss
ONE_SIZE = 256 << 20  # the copy size of a fleet run at one size


def slow_down(doc: fb.Document, sources: tuple[str, ...], factor: float) -> None:
    """The GPU of doc moves the bytes of its source set's planted sweep at factor x."""
    fb.scale_bandwidth(doc, fb.starts(SWEEPS[sources] + "/"), factor)


NAMES = {fb.COPY_LAUNCH: "COPY_LAUNCH", fb.CI_PAIR: "CI_PAIR", fb.PEER: "PEER"}


@dataclass(frozen=True)
class Verdict:
    slower: set[str]  # hosts of GPUs slower than their group
    below_floor: set[str]  # hosts of GPUs below their model's floor
    splits: set[str] = field(default_factory=set, compare=False)  # benchmarks split in two

    @property
    def hosts(self) -> set[str]:
        return self.slower | self.below_floor


def gpus_of(fleet: list[fb.Document]) -> list[Gpu]:
    gpus = []
    for doc in fleet:
        name = fb.file_name(doc)
        gpus += result_found(name, loads(json.dumps(doc), Path(name))).gpus
    return gpus


def committed_limits() -> list[Limits]:
    return [load_limits(path) for path in default_limit_files()]


def floorless() -> list[Limits]:
    """The committed limits without their floors: the rule's process losses alone."""
    return [Limits(limit.source, limit.gpu_name, {}, limit.process_losses)
            for limit in committed_limits()]


def verdict(fleet: list[fb.Document], rule: Rule = Rule(),
            limits: list[Limits] | None = None) -> Verdict:
    """gpubench-tools fleet's judgement of a fleet, in process: outliers per group and floors."""
    gpus = gpus_of(fleet)
    groups = group_gpus(gpus)
    limits = committed_limits() if limits is None else limits
    for group in groups:
        if len(group.gpus) >= rule.min_gpus:
            judge(group, rule, process_losses_of(limits, group.gpus[0].gpu_name))
    below = judge_floors(gpus, limits, rule.corroborate)
    return Verdict({f.gpu.host for g in groups for f in g.flags},
                   {b.gpu.host for b in below}, {name for g in groups for name in g.splits})


def copies_at_one_size(fleet: list[fb.Document], size: int = ONE_SIZE) -> list[fb.Document]:
    """The fleet with its copies at `size` bytes alone, as a run given --sizes=<size> has them:
    each copy sweep of one benchmark."""
    for doc in fleet:
        doc["benchmarks"] = [e for e in doc["benchmarks"] if not e["run_name"].startswith(
            "copy/") or f"/{size}/" in e["run_name"]]
    return fleet


def measure(fleets: int, sources: tuple[str, ...],
            limits: list[Limits]) -> tuple[int, int, int]:
    """(noise-only fleets with a flag, fleets where the one slow GPU alone is flagged, fleets
    where the slow half alone is flagged)."""
    false_flags = found = found_half = 0
    half_hosts = {f"node{gpu:02d}" for gpu in HALF}
    for seed in range(fleets):
        fleet = fb.build_fleet(16, seed, sources)
        false_flags += bool(verdict(fleet, limits=limits).hosts)
        slow_down(fleet[3], sources, ONE_SLOW)
        found += verdict(fleet, limits=limits).hosts == {"node03"}
        fleet = fb.build_fleet(16, seed, sources)
        for gpu in HALF:
            slow_down(fleet[gpu], sources, HALF_SLOW)
        found_half += verdict(fleet, limits=limits).hosts == half_hosts
    return false_flags, found, found_half


def measure_one_size(fleets: int, limits: list[Limits]) -> tuple[int, int]:
    """(COPY_LAUNCH noise-only fleets with copies at ONE_SIZE alone where a benchmark splits,
    those where a GPU is flagged)."""
    split = flagged = 0
    for seed in range(fleets):
        found = verdict(copies_at_one_size(fb.build_fleet(16, seed, fb.COPY_LAUNCH,
                                                          process_levels=False)),
                        limits=limits)
        split += bool(found.splits)
        flagged += bool(found.hosts)
    return split, flagged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fleets", type=int, default=100)
    args = parser.parse_args(argv)
    limits = committed_limits()
    for sources, sweep in SWEEPS.items():
        false_flags, found, found_half = measure(args.fleets, sources, limits)
        print(f"{NAMES[sources]}: noise only, a GPU flagged in {false_flags} of {args.fleets} "
              f"fleets; {sweep} at {ONE_SLOW:g}x on one GPU, found alone in {found} of "
              f"{args.fleets}; at {HALF_SLOW:g}x on {len(HALF)} GPUs, found alone in "
              f"{found_half} of {args.fleets}")
    split, flagged = measure_one_size(args.fleets, limits)
    print(f"COPY_LAUNCH, copies at {ONE_SIZE >> 20} MiB alone: noise only, a benchmark split in "
          f"two in {split} of {args.fleets} fleets, a GPU flagged in {flagged}")
    return 0


if __name__ == "__main__":
    from gpubench_tools.cli import process
    process.install(Path(sys.argv[0]).name)  # stdout and stderr guarded, as the command's are
    sys.exit(main())
