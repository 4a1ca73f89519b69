"""The same GPU's result twice: a finding, not a refusal.

A GPU measured twice in one fleet (a Kubernetes pod rescheduled onto a GPU already measured, a
task run again by hand) leaves two results naming one UUID. The later is judged, by its
context's `date` (when gpubench started, with its offset), the file's name breaking a tie or a
date that is missing or not ISO 8601; each earlier one is a `duplicate` row naming the file
judged instead, and needs attention: a GPU measured twice is a scheduler that measured some other
GPU not at all, or a result from another run in the fleet's directory.
"""

from datetime import datetime, timezone

from gpubench_tools.reading.fleet.records import Gpu, RunRecord


def started(gpu: Gpu) -> datetime:
    """When the GPU's run started, by its context's date; the earliest time where none is read
    (such a result counts as earlier than one that says)."""
    try:
        when = datetime.fromisoformat(str(gpu.context.get("date", "")))
    except ValueError:
        return datetime.min.replace(tzinfo=timezone.utc)
    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)


def later_of_each(gpus: list[Gpu]) -> tuple[list[Gpu], list[RunRecord]]:
    """The GPUs with one result per UUID, the latest, in their order; a `duplicate` record of
    each earlier result."""
    by_uuid: dict[str, list[Gpu]] = {}
    for gpu in gpus:
        by_uuid.setdefault(gpu.uuid, []).append(gpu)
    kept: set[int] = set()
    records = []
    for results in by_uuid.values():
        ordered = sorted(results, key=lambda g: (started(g), g.source))
        judged = ordered[-1]
        kept.add(id(judged))
        for earlier in ordered[:-1]:
            records.append(RunRecord(
                "duplicate", earlier.host, earlier.uuid,
                f"the same GPU's result again in {judged.source} (started "
                f"{judged.context.get('date', 'at a time not stated')}, judged instead); this "
                f"one started {earlier.context.get('date', 'at a time not stated')}, not judged",
                earlier.source, job=earlier.job))
    return [gpu for gpu in gpus if id(gpu) in kept], records
