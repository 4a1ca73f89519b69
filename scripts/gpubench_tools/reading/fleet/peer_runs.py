"""A node's peer run, read for judging its pairs of GPUs: the node, each GPU the run names, and
per ordered pair its copies.

deploy/slurm runs gpubench --device=all over a node's GPUs with the peer family's
filter, into `peer/<node>.json`. Its context describes each GPU in `device_<N>` ("model, UUID,
PCI bus id", bench/gpu_context.cpp) and each ordered pair's link in `peer_<s>to<d>` (access,
NVLink version and count, NVSwitch, PCIe: src/topology.cpp). A benchmark is a copy between two
GPUs where its series names a pair (`peer/<engine>/<mode>/<s>to<d>/<bytes>`: reading/facts.py's
pair_of), or a traffic pattern over several (`allto<d>`, `<s>toall`, `bisect`:
src/peer_patterns.hpp), which names no pair and is not judged here.

A run that is not of this form is a `damaged` peer record, its GPUs named where its context
names them, and none of its figures is judged: a context that names no GPU by index, more than
MAX_DEVICES or one GPU under two, a pair of a GPU with itself or with one the context does not
describe, a copy without its size, a benchmark that is neither a pair's copy nor a pattern. A run
that did not end well (failed benchmarks, interrupted, never ended) is a peer record as a GPU's
would be (records.result_found), and its pairs are still judged.
"""

import re
from dataclasses import dataclass, replace
from pathlib import Path

from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.reading.facts import pair_of
from gpubench_tools.reading.fleet.benchmark_errors import failed_benchmarks
from gpubench_tools.reading.fleet.jobs import job_of_context
from gpubench_tools.reading.fleet.records import (
    HOST_KEYS,
    Found,
    RunRecord,
    damaged,
    host_of,
    result_found,
)
from gpubench_tools.reading.result_file import load_with_document
from gpubench_tools.reading.results import Benchmark, Result
from gpubench_tools.reading.safe_text import one_line

# A context key describing one GPU of a run over several, and its value's three parts.
_DEVICE_KEY = re.compile(r"device_([0-9]{1,4})")
_DEVICE_PARTS = 3
# The most GPUs gpubench measures at once (max_devices, src/options.hpp): a node's matrix has
# their square of cells, and a context naming thousands would make millions.
MAX_DEVICES = 64
# A pattern's component: every GPU to one, one to every GPU, half the GPUs to the other half.
_PATTERN = re.compile(r"allto[0-9]{1,4}|[0-9]{1,4}toall|bisect")

Pair = tuple[int, int]  # (source, destination): GPU indices of the node


@dataclass(frozen=True)
class PeerDevice:
    index: int  # its ordinal on the node, as the run's device_<N>
    name: str  # GPU model
    uuid: str
    pci_bus_id: str


@dataclass(frozen=True)
class PeerRun:
    source: str
    name: str  # its files less their suffix: joins its result with its .status and .err
    host: str
    result: Result  # its context; its benchmarks are in `pairs`
    devices: dict[int, PeerDevice]
    # Per ordered pair, its copies by (the series with the pair as `*`, the size): the copies of
    # one series at one size are alike for every pair of a node of one link.
    pairs: dict[Pair, dict[tuple[str, int], Benchmark]]
    patterns: int  # benchmarks of a traffic pattern: no pair's, not judged here

    @property
    def context(self) -> dict:
        return self.result.context

    @property
    def job(self) -> str | None:
        return job_of_context(self.context)

    @property
    def uuids(self) -> tuple[str, ...]:
        return uuids_of(self.devices)

    def link(self, pair: Pair) -> str:
        """The pair's link as its context describes it, "" where it does not."""
        return str(self.context.get(f"peer_{pair[0]}to{pair[1]}", ""))


def uuids_of(devices: dict[int, PeerDevice]) -> tuple[str, ...]:
    """The UUIDs of a run's GPUs, in order of index."""
    return tuple(device.uuid for _, device in sorted(devices.items()))


class NotAPeerRun(Exception):
    """A result that is not a peer run over a node's GPUs; str() says why in one line."""


def devices_of(context: dict) -> dict[int, PeerDevice]:
    """Each GPU the context describes in device_<N>, by index."""
    devices: dict[int, PeerDevice] = {}
    for key, value in context.items():
        if not (match := _DEVICE_KEY.fullmatch(key)):
            continue
        parts = value.rsplit(", ", _DEVICE_PARTS - 1) if isinstance(value, str) else []
        if len(parts) != _DEVICE_PARTS or not all(parts):
            raise NotAPeerRun(f"context {key} is not 'model, UUID, PCI bus id': "
                              f"{one_line(str(value), 200)}")
        devices[int(match[1])] = PeerDevice(int(match[1]), *parts)
    if not devices:
        raise NotAPeerRun("its context names no GPU by index (device_<N>, which gpubench "
                          "--device=all writes)")
    if len(devices) > MAX_DEVICES:
        raise NotAPeerRun(f"its context names {len(devices)} GPUs, more than the {MAX_DEVICES} "
                          "gpubench measures at once")
    named: dict[str, int] = {}
    for index, device in sorted(devices.items()):
        if (other := named.setdefault(device.uuid, index)) != index:
            raise NotAPeerRun(f"context device_{other} and device_{index} name one GPU, "
                              f"{one_line(device.uuid, 200)}")
    return devices


def pairs_of(benchmarks: dict[str, Benchmark], devices: dict[int, PeerDevice]
             ) -> tuple[dict[Pair, dict[tuple[str, int], Benchmark]], int]:
    """Per ordered pair its copies (PeerRun.pairs), and how many benchmarks are patterns."""
    pairs: dict[Pair, dict[tuple[str, int], Benchmark]] = {}
    patterns = 0
    for name, bench in benchmarks.items():
        parts = bench.parts
        shown = one_line(name, 200)
        if (found := pair_of(parts.series)) is None:
            if not any(_PATTERN.fullmatch(part) for part in parts.series.split("/")):
                raise NotAPeerRun(f"{shown} is neither a copy between two GPUs (<s>to<d>) nor "
                                  "a pattern (allto<d>, <s>toall, bisect)")
            patterns += 1
            continue
        group, source, destination = found
        if source == destination:
            raise NotAPeerRun(f"{shown} copies from a GPU to itself")
        if missing := [i for i in (source, destination) if i not in devices]:
            raise NotAPeerRun(f"{shown} names GPU {missing[0]}, which its context does not "
                              f"describe (device_{missing[0]})")
        if parts.argument is None:
            raise NotAPeerRun(f"{shown} gives no size")
        pairs.setdefault((source, destination), {})[
            (f"{parts.family}/{group}", parts.argument)] = bench
    return pairs, patterns


def as_peer(record: RunRecord, host: str, name: str, uuids: tuple[str, ...]) -> RunRecord:
    """A record of a peer run: of its node and every GPU it names, joined with the run's other
    files by `name`."""
    return replace(record, host=record.host or host, name=name, gpus=uuids,
                   uuid=record.uuid or (uuids[0] if uuids else None))


def read_peer_result(path: Path, node: str) -> Found:
    """A peer run's result, `node`'s as its file's name says: its PeerRun, and its records where
    it did not end well; a damaged peer record where it cannot be read or is not a peer run (the
    module's docstring)."""
    name = str(path.parent / node)
    try:
        result, document = load_with_document(path, require_benchmarks=False)
        found = result_found(str(path), result, failed_benchmarks(document))
    except GpubenchJsonError as error:
        found = damaged(str(path), error)
        return Found(peer_records=[as_peer(r, node, name, ()) for r in found.records])
    host = host_of(result.context) if any(result.context.get(key) for key in HOST_KEYS) else node
    uuids: tuple[str, ...] = ()
    try:
        devices = devices_of(result.context)
        uuids = uuids_of(devices)
        # A peer copy names no one device: the run's benchmarks are its first GPU's.
        benchmarks = {n: b for gpu in found.gpus for n, b in gpu.benchmarks.items()}
        pairs, patterns = pairs_of(benchmarks, devices)
    except NotAPeerRun as error:
        found = damaged(str(path), f"not a peer run over a node's GPUs: {error}")
    records = [as_peer(r, host, name, uuids) for r in found.records]
    if any(r.status == "damaged" for r in records):
        return Found(peer_records=records)
    return Found(peer_records=records, peer_runs=[PeerRun(
        str(path), name, host, found.gpus[0].result, devices, pairs, patterns)])
