"""Each ordered pair of GPUs of the nodes' peer runs against the like pairs of the fleet, and each
node's matrix of them.

A pair is judged as a GPU is (models/fleet/outliers.py, by the fleet's rule): a node's pair is a
member of its group, its copies the benchmarks, each against the group's median by the larger of
the group's spread and the runs' own noise. A group is the pairs of one GPU model, driver,
gpubench version, host CPU and measurement settings, grouped as GPUs are (models/fleet/groups.py),
and of one link as its run's context describes it (`peer_<s>to<d>`: NVLink version and count,
NVSwitch, PCIe): the pairs of a node over one kind of link are alike, so a fleet of one 8-GPU
NVSwitch node is a group of its 56 pairs, and a pair is compared with its node's as with the
others'.

A pair is judged at the largest size its run copies in each series (ce/read, sm/bidir, ...):
gpubench measures every pair at that size and the smaller ones for a few representative pairs
alone (bench/peer/peer.cpp), and a small copy's figure depends on its direction (on the two-H200
machine an SM read of 64 KiB moves 21.0 GB/s one way and 22.3 the other, results/h200x2/peer.json),
which would set healthy pairs of a node apart. A pair's copies corroborate each other (judge's
`alike`): a fault of a link or of a GPU's NVLink slows every copy over it, whatever the engine or
the direction, so --corroborate copies must flag a pair. No limits file holds a peer copy's
process loss, so the rule's process headroom does not apply.

In a fleet of --min-gpus pairs or more, a pair of a smaller group (a link unlike the others', a
node of another driver alone) is apart: no group vouches for it, and blame counts it with the
slow pairs (models/fleet/peer_blame.py), as a GPU no group vouches for needs attention.
"""

from dataclasses import dataclass, field

import numpy as np

from gpubench_tools.models.fleet.groups import group_gpus
from gpubench_tools.models.fleet.identity import plain
from gpubench_tools.models.fleet.outliers import Flag, Group, Rule, judge
from gpubench_tools.reading.fleet.peer_runs import Pair, PeerRun
from gpubench_tools.reading.fleet.records import Gpu


@dataclass
class NodeMatrix:
    """A node's pairs: each judged pair's speed against its group's median (its slowest flagged
    copy's, else the median of its copies'), the flagged copies of each slow pair, and each pair
    apart with its link."""
    run: PeerRun
    speed: dict[Pair, float] = field(default_factory=dict)
    flags: dict[Pair, list[Flag]] = field(default_factory=dict)
    apart: dict[Pair, str] = field(default_factory=dict)

    @property
    def gpus(self) -> list[int]:
        return sorted(self.run.devices)

    @property
    def bad(self) -> set[Pair]:
        return set(self.flags) | set(self.apart)

    @property
    def looked_at(self) -> set[Pair]:
        """The pairs judged or apart: those blame weighs."""
        return set(self.speed) | set(self.apart)


@dataclass
class PairGroup:
    link: str  # as its first pair's context spells it; "" where the context does not say
    group: Group  # a member per pair (pair_member)


@dataclass
class PeerJudgement:
    groups: list[PairGroup] = field(default_factory=list)  # the largest first
    matrices: list[NodeMatrix] = field(default_factory=list)  # a node's run each


def copy_name(member_benchmark: str, pair: Pair) -> str:
    """A pair's copy as its run names it: `peer/ce/read/*/1073741824` of 6to7 is
    `peer/ce/read/6to7/1073741824`."""
    return "/".join(f"{pair[0]}to{pair[1]}" if part == "*" else part
                    for part in member_benchmark.split("/"))


def every_copy(_: str) -> str:
    """The copies a fault of a pair slows alike: all of them (judge's `alike`)."""
    return "pair"


def pair_member(run: PeerRun, pair: Pair, run_largest: dict[str, int]) -> Gpu:
    """A pair of a node as a member of its group: its copies at its run's largest sizes."""
    source, destination = (run.devices[i] for i in pair)
    model = source.name if source.name == destination.name else \
        f"{source.name} to {destination.name}"
    copies = {f"{series}/{size}": bench for (series, size), bench in run.pairs[pair].items()
              if run_largest[series] == size}
    return Gpu(run.source, run.result, f"{run.name} {pair[0]}to{pair[1]}", run.host, model,
               copies)


def run_largest_sizes(run: PeerRun) -> dict[str, int]:
    """Per series, the largest size any pair of the run copies."""
    largest: dict[str, int] = {}
    for copies in run.pairs.values():
        for series, size in copies:
            largest[series] = max(size, largest.get(series, size))
    return largest


def judge_peers(runs: list[PeerRun], rule: Rule) -> PeerJudgement:
    """The pairs of every run in groups, each group of --min-gpus pairs or more judged, and each
    run's NodeMatrix."""
    matrices = [NodeMatrix(run) for run in runs]
    members: dict[str, tuple[NodeMatrix, Pair]] = {}
    by_link: dict[str, list[Gpu]] = {}
    links: dict[str, str] = {}
    for matrix in matrices:
        largest = run_largest_sizes(matrix.run)
        for pair in sorted(matrix.run.pairs):
            member = pair_member(matrix.run, pair, largest)
            members[member.uuid] = (matrix, pair)
            link = matrix.run.link(pair)
            by_link.setdefault(plain(link), []).append(member)
            links.setdefault(plain(link), link)
    groups = sorted((PairGroup(links[key], group) for key, pairs in by_link.items()
                     for group in group_gpus(pairs)),
                    key=lambda g: (-len(g.group.gpus), g.link, g.group.key))
    compared = len(members) >= rule.min_gpus
    for pair_group in groups:
        group = pair_group.group
        if len(group.gpus) < rule.min_gpus:
            if compared:
                for member in group.gpus:
                    matrix, pair = members[member.uuid]
                    matrix.apart[pair] = pair_group.link
            continue
        judge(group, rule, None, alike=every_copy)
        for row, member in enumerate(group.gpus):
            speeds = group.speed[row][np.isfinite(group.speed[row])]
            if speeds.size:
                matrix, pair = members[member.uuid]
                matrix.speed[pair] = float(np.median(speeds))
        for flag in group.flags:
            matrix, pair = members[flag.gpu.uuid]
            matrix.flags.setdefault(pair, []).append(flag)
            matrix.speed[pair] = min(flag.speed, matrix.speed[pair])
    return PeerJudgement(groups, matrices)
