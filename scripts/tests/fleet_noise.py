#!/usr/bin/env python3
"""How often fleet.py's rule flags a GPU in fleets of pure noise, and finds a planted loss.

    python3 scripts/tests/fleet_noise.py [--fleets=100]

For each source set of fleet_builder (real H200 repetitions), judges --fleets noise-only fleets
of 16 GPUs (seeds 0..N-1) with fleet.py's default rule and the committed limits, and counts the
fleets in which any GPU is flagged (slower than its group, or below its floor); then plants a
10% loss of one device-timed sweep on one GPU and counts the fleets in which that GPU, and only
it, is flagged. docs/cluster.md states what it prints.
"""

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # scripts/, run as a script

import fleet_builder as fb  # noqa: E402 (after the path it needs)
from fleet_inputs import Gpu, result_found
from fleet_limits import Limits, default_limit_files, judge_floors, load_limits
from fleet_outliers import Rule, group_gpus, judge
from gpubench_json import loads

Plant = Callable[[fb.Document], None]
# A 10% loss of a device-timed sweep, per source set: (what, plant).
LOSSES: dict[tuple[str, ...], tuple[str, Plant]] = {
    fb.COPY_LAUNCH: ("copy/HtoD/pinned/async at 0.9x", lambda doc: fb.scale_bandwidth(
        doc, fb.starts("copy/HtoD/pinned/async/"), 0.9)),
    fb.CI_PAIR: ("saxpy/driver at 0.9x", lambda doc: fb.scale_bandwidth(
        doc, fb.starts("saxpy/driver/"), 0.9)),
    fb.PEER: ("peer/ce/write/0to1 at 0.9x", lambda doc: fb.scale_bandwidth(
        doc, fb.starts("peer/ce/write/0to1/"), 0.9)),
}
NAMES = {fb.COPY_LAUNCH: "COPY_LAUNCH", fb.CI_PAIR: "CI_PAIR", fb.PEER: "PEER"}


@dataclass(frozen=True)
class Verdict:
    slower: set[str]  # hosts of GPUs slower than their group
    below_floor: set[str]  # hosts of GPUs below their model's floor

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


def verdict(fleet: list[fb.Document], rule: Rule = Rule(),
            limits: list[Limits] | None = None) -> Verdict:
    """fleet.py's judgement of a fleet, in process: outliers per group and floors."""
    gpus = gpus_of(fleet)
    groups = group_gpus(gpus)
    for group in groups:
        if len(group.gpus) >= rule.min_gpus:
            judge(group, rule)
    below = judge_floors(gpus, committed_limits() if limits is None else limits,
                         rule.corroborate)
    return Verdict({f.gpu.host for g in groups for f in g.flags},
                   {b.gpu.host for b in below})


def measure(fleets: int, sources: tuple[str, ...], limits: list[Limits]) -> tuple[int, int]:
    """(noise-only fleets with a flag, fleets where the planted GPU alone is flagged)."""
    false_flags = found = 0
    plant = LOSSES[sources][1]
    for seed in range(fleets):
        fleet = fb.build_fleet(16, seed, sources)
        false_flags += bool(verdict(fleet, limits=limits).hosts)
        plant(fleet[3])
        found += verdict(fleet, limits=limits).hosts == {"node03"}
    return false_flags, found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fleets", type=int, default=100)
    args = parser.parse_args(argv)
    limits = committed_limits()
    for sources, (what, _) in LOSSES.items():
        false_flags, found = measure(args.fleets, sources, limits)
        print(f"{NAMES[sources]}: noise only, a GPU flagged in {false_flags} of {args.fleets} "
              f"fleets; {what} on one GPU, found alone in {found} of {args.fleets}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
