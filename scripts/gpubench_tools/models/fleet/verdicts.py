"""One verdict per GPU that needs attention: which GPU (host, index, PCI bus id, UUID), what is
wrong, how far, and what to do, worst first; the report's sections below hold the detail.

What to do follows from what is wrong, worst first: a run that did not finish is rerun (its
stderr says why); a health flag to act on now drains the GPU for a reset, and for an RMA where it
comes back; one for the next maintenance, or a PCIe link narrower or slower than its maximum,
drains it then to reseat it; a GPU below its floor or slower than its group, or throttled, is
rerun in several processes (gpubench-tools merge) before it is drained, since one process can
land on a level of its own; a GPU of another model or driver, or no group to compare with, is
compared with its like; two nodes under one name need their names fixed. A GPU or a link its
node's slow peer copies blame (models/fleet/peer_blame.py) has its NVLinks checked and is drained
at the next maintenance to reseat it, as a health flag for then is; pairs no group compares are
compared with their like, their NVLinks checked where their link is unlike the others'. A line
names a link by both its GPUs, and a node whose pairs are slow throughout by its host, whose
peer run is rerun first; a node's peer run that did not finish is one line of the node's GPUs,
as its record is.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from gpubench_tools.models.fleet.groups import Apart, Group
from gpubench_tools.models.fleet.health import WATCH, HealthFinding
from gpubench_tools.models.fleet.limits import BelowFloor
from gpubench_tools.models.fleet.outliers import sweep
from gpubench_tools.models.fleet.peer_blame import PeerFault
from gpubench_tools.models.fleet.peer_pairs import copy_name
from gpubench_tools.models.fleet.processes import TOO_FEW
from gpubench_tools.models.fleet.unscreened import Unscreened
from gpubench_tools.reading.fleet.records import Gpu, RunRecord

RERUN_MERGED = "rerun it in several processes and merge them; drain it if the loss stays"
NVLINK_CHECK = "check `nvidia-smi nvlink -s`"
PEER_TO_DO = {
    "GPU": f"{NVLINK_CHECK}; drain it at the next maintenance to reseat it",
    "link": f"{NVLINK_CHECK} on both; drain them at the next maintenance to reseat them",
    "node": f"rerun its peer run; where the loss stays, {NVLINK_CHECK} and its NVSwitches",
}
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
    gpus: int = 1  # the GPUs the line stands for: a link's two, a node's every GPU


def _where(gpu: Gpu | None, host: str | None, uuid: str | None) -> tuple[str, str, str, str]:
    if gpu is None:
        return host or "?", "?", "?", uuid or "?"
    context = gpu.context
    return (gpu.host, str(context.get("gpu_ordinal", "?")),
            str(context.get("gpu_pci_bus_id", "?")), gpu.uuid)


def peer_verdict(fault: PeerFault) -> tuple[str, Verdict]:
    """A peer fault's verdict, keyed by its GPU's UUID (one verdict with the GPU's other
    findings), or by its node and GPUs; a slow pair's at the rank of a GPU slower than its group,
    one of pairs apart alone at that of a GPU with no group to compare with."""
    run, devices, worst = fault.matrix.run, fault.devices, fault.worst
    where = {"GPU": "its NVLinks", "link": f"the link of GPUs {fault.ends[0]} and "
             f"{fault.ends[-1]}", "node": "NVLink across the node"}[fault.kind]
    if worst is not None:
        pair, flag = worst
        wrong = (f"{where}: peer copies slower than their group on {len(fault.pairs)} of "
                 f"{fault.looked_at} pair(s)")
        how_far = f"{flag.speed:.3f} of its group's median ({copy_name(flag.benchmark, pair)})"
    else:
        wrong = f"{where}: {len(fault.pairs)} pair(s) with no group to compare with"
        how_far = f"link {fault.matrix.apart[fault.pairs[0]] or 'not described'}"
    if fault.kind == "node":
        key, index, pci, uuid = f"{run.host} peer", f"all {len(devices)}", "-", "-"
    else:
        key = devices[0].uuid if fault.kind == "GPU" else f"{run.host} {where}"
        index = ", ".join(str(d.index) for d in devices)
        pci = ", ".join(d.pci_bus_id for d in devices)
        uuid = ", ".join(d.uuid for d in devices)
    to_do = PEER_TO_DO[fault.kind] if worst is not None else \
        f"compare them with their like; where their link is unlike the others', {NVLINK_CHECK}"
    return key, Verdict(run.host, index, pci, uuid, wrong, how_far, to_do,
                        4 if worst is not None else 6, len(devices))


def gpu_verdicts(gpus: Sequence[Gpu], records: Sequence[RunRecord],
                 health: Sequence[HealthFinding], below_floor: Sequence[BelowFloor],
                 groups: Sequence[Group], apart: Sequence[Apart],
                 unscreened: Sequence[Unscreened],
                 peer_faults: Sequence[PeerFault] = ()) -> list[Verdict]:
    """The worst finding of each GPU that needs attention, as one verdict; worst first."""
    by_uuid = {gpu.uuid: gpu for gpu in gpus}
    found: dict[str, Verdict] = {}

    def add(key: str, gpu: Gpu | None, host: str | None, uuid: str | None, wrong: str,
            how_far: str, to_do: str, rank: int) -> None:
        if key not in found or rank < found[key].rank:
            found[key] = Verdict(*_where(gpu, host, uuid), wrong, how_far, to_do, rank)

    for record in records:
        to_do = TO_DO_OF_RECORD.get(record.status, "read its stderr, then rerun it")
        if record.gpus:  # a node's peer run: its GPUs together, as a node's peer fault
            found[f"{record.host} peer"] = Verdict(
                record.host or "?", f"all {len(record.gpus)}", "-", "-",
                f"peer run {record.status}", record.detail[:120], to_do, 0, len(record.gpus))
            continue
        key = record.uuid or f"{record.host}:{record.source}"
        add(key, by_uuid.get(record.uuid or ""), record.host, record.uuid,
            f"run {record.status}", record.detail[:120], to_do, 0)
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
    for fault in peer_faults:
        key, verdict = peer_verdict(fault)
        if key not in found or verdict.rank < found[key].rank:
            found[key] = verdict
    return sorted(found.values(), key=lambda v: (v.rank, v.host, v.index, v.uuid))
