"""The fleet an operator expected, against what its runs left: the GPUs that are missing.

--expect N: N GPUs. --expect-hosts FILE: one entry a line, `HOST` (at least one GPU), `HOST N` (N
GPUs) or a GPU UUID (`GPU-...`), each once; `#` starts a comment. A GPU is accounted for by its
result or by the record of its run (failed, interrupted, killed, damaged); a run that left no UUID
(gpubench found no GPU) counts as one GPU of its host.
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
    count: int | None = None
    hosts: dict[str, int] = field(default_factory=dict)  # host: GPUs (at least 1)
    uuids: list[str] = field(default_factory=list)
    source: str = ""

    @property
    def given(self) -> bool:
        return self.count is not None or bool(self.hosts) or bool(self.uuids)


def read_expected_hosts(path: Path) -> Expected:
    text = read_text(path, f"--expect-hosts {path}")
    expected = Expected(source=str(path))
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) > 2 or (len(words) == 2 and not _GPU_COUNT.fullmatch(words[1])):
            raise FleetInputError(f"--expect-hosts {path}:{number}: not `HOST`, `HOST GPUS` or "
                                  f"a GPU UUID: {line.strip()[:60]!r}")
        if _UUID.match(words[0]) and len(words) == 1:
            if words[0] in expected.uuids:
                raise FleetInputError(f"--expect-hosts {path}:{number}: GPU {words[0]} is "
                                      "listed twice")
            expected.uuids.append(words[0])
        else:
            if words[0] in expected.hosts:
                raise FleetInputError(f"--expect-hosts {path}:{number}: host "
                                      f"{words[0][:60]!r} is listed twice: give its GPUs once")
            expected.hosts[words[0]] = int(words[1]) if len(words) == 2 else 1
    if not expected.given:
        raise FleetInputError(f"--expect-hosts {path}: no host or GPU in it")
    return expected


def accounted(gpus: list[Gpu], records: list[RunRecord]) -> list[tuple[str | None, str | None]]:
    """(host, uuid) of every GPU the fleet's files account for, each once."""
    seen: dict[object, tuple[str | None, str | None]] = {}
    for gpu in gpus:
        seen[("uuid", gpu.uuid)] = (gpu.host, gpu.uuid)
    for record in records:
        seen.setdefault(record.key, (record.host, record.uuid))
    return list(seen.values())


def missing(expected: Expected, gpus: list[Gpu], records: list[RunRecord]) -> list[RunRecord]:
    """A `missing` record per GPU expected and not accounted for (by host, UUID, or count)."""
    found = accounted(gpus, records)
    result = []
    uuids = {uuid for _, uuid in found if uuid}
    for uuid in expected.uuids:
        if uuid not in uuids:
            result.append(RunRecord("missing", None, uuid, "expected (--expect-hosts); no "
                                    "result, .err or status names it", expected.source))
    per_host: dict[str | None, int] = {}
    for host, _ in found:
        per_host[host] = per_host.get(host, 0) + 1
    for host, count in expected.hosts.items():
        have = per_host.get(host, 0)
        if have < count:
            what = "nothing from this host" if have == 0 else f"{have} of {count} GPUs found"
            result.append(RunRecord("missing", host, None, f"expected (--expect-hosts): {what}",
                                    expected.source, count - have))
    named = sum(record.count for record in result)
    if expected.count is not None and len(found) + named < expected.count:
        result.append(RunRecord("missing", None, None,
                                f"expected {expected.count} GPUs (--expect), found {len(found)}",
                                "--expect", expected.count - len(found) - named))
    return result


def unexpected_hosts(expected: Expected, gpus: list[Gpu]) -> list[str]:
    """Hosts with results that --expect-hosts does not list (a wrong directory, a stale file)."""
    if not expected.hosts:
        return []
    return sorted({gpu.host for gpu in gpus} - set(expected.hosts)
                  - {gpu.host for gpu in gpus if gpu.uuid in expected.uuids})
