"""The fleet an operator expected, against what its runs left: the GPUs that are missing.

--expect N: N GPUs. --expect-hosts FILE: one entry a line, `HOST` (at least one GPU), `HOST N` (N
GPUs) or a GPU UUID (`GPU-...`), each once; `#` starts a comment. deploy/slurm writes what Slurm
allocated a job in that format (`job<JOB>.expected_hosts`): without --expect-hosts, each directory's
newest job's allocation is the fleet expected (reading/fleet/inputs.py keeps it), a host in several
directories' expected with the most GPUs any gives (the same nodes measured again into another
directory are those nodes, not more). A GPU is accounted for by its result or by the record of its
run (failed, interrupted, killed, damaged, stale); a run that left no UUID (gpubench found no GPU)
counts as one GPU of its host.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

from gpubench_tools.reading.fleet.files import read_text
from gpubench_tools.reading.fleet.records import FleetInputError, Gpu, RunRecord

_UUID = re.compile(r"^(?:GPU|MIG)-[0-9A-Za-z-]+$")
_GPU_COUNT = re.compile(r"[1-9][0-9]{0,8}")  # ASCII digits: int() reads others too, or fails


@dataclass
class Expected:
    hosts: dict[str, int] = field(default_factory=dict)  # host: GPUs (at least 1)
    uuids: list[str] = field(default_factory=list)
    source: str = ""
    said: str = "--expect-hosts"  # where a `missing` row says the expectation comes from


def read_expected_hosts(path: Path, label: str | None = None,
                        said: str = "--expect-hosts") -> Expected:
    """The hosts and GPUs a file lists; FleetInputError naming it by `label` (`--expect-hosts
    FILE`) where it cannot be read or is not of the format."""
    label = label or f"--expect-hosts {path}"
    text = read_text(path, label)
    expected = Expected(source=str(path), said=said)
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) > 2 or (len(words) == 2 and not _GPU_COUNT.fullmatch(words[1])):
            raise FleetInputError(f"{label}:{number}: not `HOST`, `HOST GPUS` or a GPU UUID: "
                                  f"{line.strip()[:60]!r}")
        if _UUID.match(words[0]) and len(words) == 1:
            if words[0] in expected.uuids:
                raise FleetInputError(f"{label}:{number}: GPU {words[0]} is listed twice")
            expected.uuids.append(words[0])
        else:
            if words[0] in expected.hosts:
                raise FleetInputError(f"{label}:{number}: host {words[0][:60]!r} is listed "
                                      "twice: give its GPUs once")
            expected.hosts[words[0]] = int(words[1]) if len(words) == 2 else 1
    if not (expected.hosts or expected.uuids):
        raise FleetInputError(f"{label}: no host or GPU in it")
    return expected


def read_allocations(allocations: list[tuple[str, str]]) -> list[Expected]:
    """The allocations (job, file) deploy/slurm wrote, each the fleet its job expected."""
    return [read_expected_hosts(Path(file), f"{file} (Slurm job {job}'s allocation)",
                                f"allocated to job {job}") for job, file in allocations]


def accounted(gpus: list[Gpu], records: list[RunRecord]) -> list[tuple[str | None, str | None]]:
    """(host, uuid) of every GPU the fleet's files account for, each once."""
    seen: dict[object, tuple[str | None, str | None]] = {}
    for gpu in gpus:
        seen[("uuid", gpu.uuid)] = (gpu.host, gpu.uuid)
    for record in records:
        seen.setdefault(record.key, (record.host, record.uuid))
    return list(seen.values())


def most_gpus(expected: list[Expected]) -> dict[str, tuple[int, Expected]]:
    """Each host expected, with the most GPUs any expectation gives it and that expectation."""
    hosts: dict[str, tuple[int, Expected]] = {}
    for each in expected:
        for host, count in each.hosts.items():
            if host not in hosts or count > hosts[host][0]:
                hosts[host] = (count, each)
    return hosts


def missing(expected: list[Expected], count: int | None, gpus: list[Gpu],
            records: list[RunRecord]) -> list[RunRecord]:
    """A `missing` record per GPU expected and not accounted for: by UUID, by host, or short of
    `count` (--expect)."""
    found = accounted(gpus, records)
    result = []
    uuids = {uuid for _, uuid in found if uuid}
    listed = {uuid: each for each in expected for uuid in each.uuids}
    for uuid, each in listed.items():
        if uuid not in uuids:
            result.append(RunRecord("missing", None, uuid, f"expected ({each.said}); no result, "
                                    ".err or status names it", each.source))
    per_host: dict[str | None, int] = {}
    for host, _ in found:
        per_host[host] = per_host.get(host, 0) + 1
    for host, (want, each) in most_gpus(expected).items():
        have = per_host.get(host, 0)
        if have < want:
            what = "nothing from this host" if have == 0 else f"{have} of {want} GPUs found"
            result.append(RunRecord("missing", host, None, f"expected ({each.said}): {what}",
                                    each.source, want - have))
    named = sum(record.count for record in result)
    if count is not None and len(found) + named < count:
        result.append(RunRecord("missing", None, None,
                                f"expected {count} GPUs (--expect), found {len(found)}",
                                "--expect", count - len(found) - named))
    return result


def unexpected_hosts(expected: list[Expected], gpus: list[Gpu]) -> list[str]:
    """Hosts with results that no host list expected names (a wrong directory, a stale file)."""
    hosts = {host for each in expected for host in each.hosts}
    if not hosts:
        return []
    uuids = {uuid for each in expected for uuid in each.uuids}
    return sorted({gpu.host for gpu in gpus} - hosts
                  - {gpu.host for gpu in gpus if gpu.uuid in uuids})
