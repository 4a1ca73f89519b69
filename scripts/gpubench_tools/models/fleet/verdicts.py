"""One verdict per GPU that needs attention: which GPU (host, index, PCI bus id, UUID), what is
wrong, how far, and what to do, worst first; the report's sections below hold the detail.

What to do follows from what is wrong, worst first: a run that did not finish is rerun (its
stderr says why); a health flag to act on now drains the GPU for a reset, and for an RMA where it
comes back; one for the next maintenance, or a PCIe link narrower or slower than its maximum,
drains it then to reseat it; a GPU below its floor or slower than its group, or throttled, is
rerun in several processes (gpubench-tools merge) before it is drained, since one process can
land on a level of its own; a GPU of another model or driver, or no group to compare with, is
compared with its like; two nodes under one name need their names fixed.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from gpubench_tools.models.fleet.groups import Apart, Group
from gpubench_tools.models.fleet.health import WATCH, HealthFinding
from gpubench_tools.models.fleet.limits import BelowFloor
from gpubench_tools.models.fleet.outliers import sweep
from gpubench_tools.models.fleet.processes import TOO_FEW
from gpubench_tools.models.fleet.unscreened import Unscreened
from gpubench_tools.reading.fleet.records import Gpu, RunRecord

RERUN_MERGED = "rerun it in several processes and merge them; drain it if the loss stays"
TO_DO_OF_RECORD = {"missing": "find why it left no result, then run it",
                   TOO_FEW: "run it until it has the processes asked for, then judge it"}


@dataclass(frozen=True)
class Verdict:
    host: str
    index: str  # the GPU's ordinal on its host, as gpubench's context gives it
    pci_bus_id: str
    uuid: str
    wrong: str
    how_far: str
    to_do: str
    rank: int  # lower is worse


def _where(gpu: Gpu | None, host: str | None, uuid: str | None) -> tuple[str, str, str, str]:
    if gpu is None:
        return host or "?", "?", "?", uuid or "?"
    context = gpu.context
    return (gpu.host, str(context.get("gpu_ordinal", "?")),
            str(context.get("gpu_pci_bus_id", "?")), gpu.uuid)


def gpu_verdicts(gpus: Sequence[Gpu], records: Sequence[RunRecord],
                 health: Sequence[HealthFinding], below_floor: Sequence[BelowFloor],
                 groups: Sequence[Group], apart: Sequence[Apart],
                 unscreened: Sequence[Unscreened]) -> list[Verdict]:
    """The worst finding of each GPU that needs attention, as one verdict; worst first."""
    by_uuid = {gpu.uuid: gpu for gpu in gpus}
    found: dict[str, Verdict] = {}

    def add(key: str, gpu: Gpu | None, host: str | None, uuid: str | None, wrong: str,
            how_far: str, to_do: str, rank: int) -> None:
        if key not in found or rank < found[key].rank:
            found[key] = Verdict(*_where(gpu, host, uuid), wrong, how_far, to_do, rank)

    for record in records:
        key = record.uuid or f"{record.host}:{record.source}"
        add(key, by_uuid.get(record.uuid or ""), record.host, record.uuid,
            f"run {record.status}", record.detail[:120], TO_DO_OF_RECORD.get(
                record.status, "read its stderr, then rerun it"), 0)
    for finding in health:
        if finding.severity < WATCH:
            now = finding.severity == 0
            add(finding.uuid, by_uuid.get(finding.uuid), None, finding.uuid, "health",
                finding.problem[:120],
                "drain it for a reset; RMA where it comes back" if now
                else "drain it at the next maintenance to reseat it", 1 if now else 2)
    for below in below_floor:
        add(below.gpu.uuid, below.gpu, None, None, f"below its model's floor on "
            f"{sweep(below.benchmark)}", f"{below.value / below.floor:.3f} of the floor",
            RERUN_MERGED, 3)
    for group in groups:
        worst: dict[str, tuple[float, str]] = {}
        for flag in group.flags:
            if flag.gpu.uuid not in worst or flag.speed < worst[flag.gpu.uuid][0]:
                worst[flag.gpu.uuid] = (flag.speed, sweep(flag.benchmark))
        for uuid, (speed, name) in worst.items():
            add(uuid, by_uuid.get(uuid), None, uuid, f"slower than its group on {name}",
                f"{speed:.3f} of its group's median", RERUN_MERGED, 4)
        for disagreement in group.disagreements:
            add(disagreement.gpu.uuid, disagreement.gpu, None, None,
                f"other facts of {disagreement.benchmark}'s figure than its group",
                "not judged on it", "check its gpubench build", 6)
    for item in unscreened:
        to_do = {"throttled": "check its cooling and power, then rerun it",
                 "two nodes, one name": "give each node its own name, then rerun it"}.get(
                     item.what, "compare it with its like (update its node to the fleet's)")
        add(item.gpu.uuid, item.gpu, None, None, item.what, item.detail[:120], to_do, 5)
    for item in apart:
        add(item.gpu.uuid, item.gpu, None, None, "no group to compare with",
            f"group {item.group} of {item.size}", "compare it with its like", 6)
    return sorted(found.values(), key=lambda v: (v.rank, v.host, v.index, v.uuid))
