"""What a node's bad pairs blame: a GPU common to them, else each link, else the whole node.

A pair is bad where its group flags it slow or it is apart (models/fleet/peer_pairs.py). A GPU
most of whose pairs (judged or apart, either direction) are bad is sick: where the sick GPUs are
fewer than half the node's, each is named, and the bad pairs none of them is in are named by
link, both ends and both directions together. A slow link leaves each of its GPUs with 2 bad
pairs of 2 (N - 1) in a node of N GPUs, so it names the link, not a GPU; a GPU slow on all 14 of
its pairs in a node of 8 is named alone, and the pairs' other ends are not. Where half the
node's GPUs or more are sick, in a node of more than two, no GPU or link stands out from the
others: most of the node's pairs are bad, and the node is named (its NVSwitches, or its run: a
whole process can land on a level of its own). In a node of two GPUs a GPU cannot be told from
the link between them: the link is named.
"""

from dataclasses import dataclass

from gpubench_tools.models.fleet.outliers import Flag
from gpubench_tools.models.fleet.peer_pairs import NodeMatrix
from gpubench_tools.reading.fleet.peer_runs import Pair, PeerDevice


@dataclass(frozen=True)
class PeerFault:
    matrix: NodeMatrix
    kind: str  # "GPU", "link" or "node"
    ends: tuple[int, ...]  # the GPU; the link's two GPUs; every GPU of the node
    pairs: tuple[Pair, ...]  # its bad pairs
    looked_at: int  # the pairs of its GPU, link or node judged or apart

    @property
    def devices(self) -> list[PeerDevice]:
        return [self.matrix.run.devices[index] for index in self.ends]

    @property
    def worst(self) -> tuple[Pair, Flag] | None:
        """The slowest flagged copy of its pairs, and its pair; None where they are apart
        alone."""
        flags = [(pair, flag) for pair in self.pairs for flag in self.matrix.flags.get(pair, ())]
        return min(flags, key=lambda found: found[1].speed, default=None)


def blame(matrix: NodeMatrix) -> list[PeerFault]:
    """The faults a node's bad pairs name (the module's docstring): its sick GPUs, then its
    links, each in order of its GPUs; or the node."""
    bad = matrix.bad
    if not bad:
        return []
    looked_at = matrix.looked_at
    gpus = matrix.gpus

    def of(gpu: int, pairs: set[Pair]) -> list[Pair]:
        return sorted(pair for pair in pairs if gpu in pair)

    sick = [gpu for gpu in gpus if 2 * len(of(gpu, bad)) > len(of(gpu, looked_at))]
    if len(gpus) > 2 and 2 * len(sick) >= len(gpus):
        return [PeerFault(matrix, "node", tuple(gpus), tuple(sorted(bad)), len(looked_at))]
    if len(gpus) <= 2:
        sick = []
    faults = [PeerFault(matrix, "GPU", (gpu,), tuple(of(gpu, bad)), len(of(gpu, looked_at)))
              for gpu in sick]
    links: dict[tuple[int, int], list[Pair]] = {}
    for pair in sorted(bad):
        if not set(pair) & set(sick):
            links.setdefault((min(pair), max(pair)), []).append(pair)
    faults += [PeerFault(matrix, "link", ends, tuple(pairs),
                         len([p for p in looked_at if set(p) == set(ends)]))
               for ends, pairs in sorted(links.items())]
    return faults
