"""A fleet's GPUs in groups of their like, and the GPUs no group can vouch for: those in a group
too small to compare (Apart), and those lacking benchmarks others of their group ran (Lacking).

An unjudged GPU is not a healthy one: a GPU set apart from the others, by a driver, a CPU or a
setting of its own, is judged by floors alone, so it is named, with what sets its group apart
from the fleet's largest, and needs attention. A fleet of fewer GPUs than --min-gpus has no group
to compare within, and names none (its groups table says so). A GPU that did not run benchmarks
its group ran is not judged on them: it is named with them, and --missing-fails fails on it.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from gpubench_tools.models.fleet.identity import PARTS, bands, identity_of, shown_key
from gpubench_tools.models.fleet.outliers import Group
from gpubench_tools.reading.fleet.records import Gpu


def group_gpus(gpus: Sequence[Gpu]) -> list[Group]:
    """The GPUs by identity (models/fleet/identity.py) and band of their hosts' clocks, the
    largest group first."""
    alike: dict[object, list[Gpu]] = {}
    for gpu in gpus:
        alike.setdefault(identity_of(gpu), []).append(gpu)
    groups = [Group(shown_key(band), sorted(band, key=lambda g: g.label))
              for members in alike.values() for band in bands(members)]
    return sorted(groups, key=lambda group: (-len(group.gpus), group.key))


@dataclass(frozen=True)
class Apart:
    """A GPU of a group too small to compare within, and how its group's key differs from the
    largest group's: (part, its, the largest group's), of PARTS (none where it is the largest)."""
    gpu: Gpu
    group: int  # its group's number, from 1
    size: int  # GPUs in its group
    differences: tuple[tuple[str, str, str], ...]


def apart(groups: Sequence[Group], min_gpus: int) -> list[Apart]:
    """The GPUs of groups smaller than min_gpus, where the fleet holds min_gpus GPUs or more."""
    if not groups or sum(len(g.gpus) for g in groups) < min_gpus:
        return []
    largest = groups[0].key
    found = []
    for number, group in enumerate(groups, start=1):
        if len(group.gpus) >= min_gpus:
            continue
        differences = tuple((part, its, theirs) for part, its, theirs
                            in zip(PARTS, group.key, largest) if its != theirs)
        found += [Apart(gpu, number, len(group.gpus), differences) for gpu in group.gpus]
    return found


@dataclass(frozen=True)
class Lacking:
    """A GPU without benchmarks others of its group ran: those benchmarks, in the group's order,
    and of the first, how many of the group's GPUs ran it."""
    gpu: Gpu
    group: int  # its group's number, from 1
    size: int  # GPUs in its group
    missing: tuple[str, ...]
    first_ran_by: int


def lacking(groups: Sequence[Group]) -> list[Lacking]:
    found = []
    for number, group in enumerate(groups, start=1):
        ran: dict[str, int] = {}
        for gpu in group.gpus:
            for name in gpu.benchmarks:
                ran[name] = ran.get(name, 0) + 1
        for gpu in group.gpus:
            missing = tuple(name for name in ran if name not in gpu.benchmarks)
            if missing:
                found.append(Lacking(gpu, number, len(group.gpus), missing, ran[missing[0]]))
    return found
