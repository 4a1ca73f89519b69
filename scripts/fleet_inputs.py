"""What the runs of a fleet left behind: each GPU's results, and each run that did not end well.

deploy/slurm writes, per GPU, `<host>_<uuid>.json` and, for a run that exited non-zero,
`<name>.err` (gpubench's stderr, then `exit status N`; `<name>` is the JSON's, or
`<host>_task<P>` / `<host>_device<D>` where gpubench wrote none). deploy/container/gpubench-pod
writes a pod log: one JSON document per line and, for a run that exited non-zero, its stderr and
`gpubench-pod: <node> device D: exit status N`. Each kind of file has one reader in READERS; a
file or line that cannot be read is a `damaged` record, named and skipped, and the rest is read.
"""

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from gpubench_json import Benchmark, GpubenchJsonError, Result, load, loads

# The statuses of a run that did not end well, worst first: how the report orders them.
STATUSES = ("missing", "killed", "failed", "damaged", "interrupted")
_SIGNALLED = {137: "killed", 130: "interrupted", 143: "interrupted"}  # 128 + SIGKILL, INT, TERM
_POD_STATUS = re.compile(r"^gpubench-pod: (.*): exit status (\d+)$")
_POD_DEVICE = re.compile(r"^(.*) device (\d+)$")
# deploy/slurm's file names: <host>_<uuid>[_task<P>], <host>_task<P>, <host>_device<D>.
_NAMED_BY_UUID = re.compile(r"^(?P<host>.+?)_(?P<uuid>(?:GPU|MIG)-[0-9A-Za-z-]+)(?:_task\d+)?$")
_NAMED_BY_TASK = re.compile(r"^(?P<host>.+)_(?:task|device)\d+$")
_DEVICE_COMPONENT = re.compile(r"/device:(\d+)(?=/|$)")
_ERR_STATUS = "exit status "


class FleetInputError(Exception):
    """Input fleet.py cannot use at all; str() is one line."""


@dataclass(frozen=True)
class Gpu:
    """One GPU's figures: a whole result file, or one device's share of a --device=N,M run."""
    source: str  # file, or file:line for a pod log
    result: Result
    uuid: str
    host: str
    gpu_name: str
    benchmarks: dict[str, Benchmark]  # names without the /device:N of a several-device run

    @property
    def context(self) -> dict:
        return self.result.context

    @property
    def label(self) -> str:
        return f"{self.host} {self.uuid}"


@dataclass(frozen=True)
class RunRecord:
    """A run that did not end well (a status of STATUSES), or a GPU expected but not found."""
    status: str
    host: str | None
    uuid: str | None  # None where the run left no UUID (gpubench found no GPU, or was killed)
    detail: str
    source: str
    count: int = 1  # GPUs it stands for: a host expected with 8 GPUs and none found is one record


@dataclass
class Found:
    gpus: list[Gpu] = field(default_factory=list)
    records: list[RunRecord] = field(default_factory=list)

    def add(self, other: "Found") -> None:
        self.gpus += other.gpus
        self.records += other.records


def host_of(context: dict) -> str:
    for key in ("slurm_node", "k8s_node", "host_name"):
        if context.get(key):
            return str(context[key])
    return "unknown host"


def status_of_exit(status: int | None) -> str:
    return _SIGNALLED.get(status, "failed") if status is not None else "failed"


def named_gpu(stem: str) -> tuple[str | None, str | None]:
    """The host and GPU UUID a deploy/slurm file name gives (None for what it does not)."""
    if match := _NAMED_BY_UUID.match(stem):
        return match["host"], match["uuid"]
    if match := _NAMED_BY_TASK.match(stem):
        return match["host"], None
    return None, None


def split_devices(source: str, result: Result) -> list[Gpu]:
    """One Gpu per device of the run. A --device=N,M run names its single-GPU benchmarks
    .../device:N and describes each device in the context key device_N ("name, uuid, bus");
    benchmarks of no one device (peer copies, copies to every device at once) stay with the
    first device, which the context's gpu_uuid names."""
    context = result.context
    host = host_of(context)
    first = str(context.get("gpu_uuid") or source)
    gpus: dict[str, Gpu] = {}
    for name, bench in result.benchmarks.items():
        uuid, gpu_name, plain = first, result.gpu_name, name
        if match := _DEVICE_COMPONENT.search(name):
            plain = _DEVICE_COMPONENT.sub("", name, count=1)
            described = str(context.get(f"device_{match[1]}", "")).rsplit(", ", 2)
            if len(described) == 3:
                gpu_name, uuid = described[0], described[1]
            else:
                uuid = f"{first} device {match[1]}"
        gpu = gpus.setdefault(uuid, Gpu(source, result, uuid, host, gpu_name, {}))
        gpu.benchmarks[plain] = bench
    # A run in which no benchmark completed still accounts for its GPU.
    return list(gpus.values()) or [Gpu(source, result, first, host, result.gpu_name, {})]


def result_found(source: str, result: Result) -> Found:
    found = Found(split_devices(source, result))
    if "interrupted" in result.context:
        gpu = found.gpus[0]
        completed = sum(len(g.benchmarks) for g in found.gpus)
        found.records.append(RunRecord(
            "interrupted", gpu.host, gpu.uuid,
            f"stopped by {result.context_text('interrupted')} after {completed} benchmark(s)",
            source))
    elif not result.benchmarks:
        gpu = found.gpus[0]
        found.records.append(RunRecord("failed", gpu.host, gpu.uuid,
                                       "no benchmark succeeded", source))
    return found


def damaged(source: str, error: GpubenchJsonError, stem: str = "") -> Found:
    host, uuid = named_gpu(stem)
    problem = str(error).removeprefix(f"{source}: ")
    return Found(records=[RunRecord("damaged", host, uuid, problem, source)])


def read_result_file(path: Path) -> Found:
    try:
        return result_found(str(path), load(path, require_benchmarks=False))
    except GpubenchJsonError as error:
        return damaged(str(path), error, path.stem)


def read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise FleetInputError(f"{path}: cannot read ({error})") from None


def read_err(path: Path) -> Found:
    """deploy/slurm's record of a run that exited non-zero."""
    lines = [line for line in read_text(path).splitlines() if line.strip()]
    status = None
    if lines and lines[-1].startswith(_ERR_STATUS) and lines[-1][len(_ERR_STATUS):].isdigit():
        status = int(lines.pop()[len(_ERR_STATUS):])
    message = lines[0].strip() if lines else "(no message)"
    host, uuid = named_gpu(path.stem)
    shown = "exit status " + (str(status) if status is not None else "unknown")
    return Found(records=[RunRecord(status_of_exit(status), host, uuid, f"{message} ({shown})",
                                    str(path))])


def read_pod_log(path: Path) -> Found:
    """A pod log of deploy/container/gpubench-pod. A status line names the node and device; the
    JSON line of the same node and device ordinal, if any, gives its UUID."""
    found = Found()
    message = ""
    uuids: dict[tuple[str, str], str] = {}  # (host, gpu ordinal): uuid
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        where = f"{path}:{number}"
        if line.startswith("{"):
            try:
                more = result_found(where, loads(line, Path(where), require_benchmarks=False))
            except GpubenchJsonError as error:
                found.add(damaged(where, error))
                continue
            for gpu in more.gpus:
                uuids[(gpu.host, str(gpu.context.get("gpu_ordinal", "")))] = gpu.uuid
            found.add(more)
        elif status := _POD_STATUS.match(line):
            device = _POD_DEVICE.match(status[1])
            host = device[1] if device else status[1]
            uuid = uuids.get((host, device[2])) if device else None
            found.records.append(RunRecord(
                status_of_exit(int(status[2])), host, uuid,
                f"{message or '(no message)'} (exit status {status[2]})", f"{where} ({status[1]})"))
            message = ""
        elif line.strip() and not message:
            message = line.strip()
    return found


# One reader per kind of file a scheduler leaves: how a new kind (a per-GPU status record) is read.
READERS: dict[str, Callable[[Path], Found]] = {
    ".json": read_result_file,
    ".jsonl": read_pod_log,
    ".log": read_pod_log,  # a pod log collected under another name
    ".err": read_err,
}


def read_inputs(paths: Iterable[str]) -> Found:
    """Every file READERS knows in the directories given (not their subdirectories), and the
    files given by name."""
    found = Found()
    for name in paths:
        path = Path(name)
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.is_file() and p.suffix in READERS)
        elif path.is_file():
            files = [path]
        else:
            raise FleetInputError(f"{path}: no such file or directory")
        for file in files:
            found.add(READERS.get(file.suffix, read_result_file)(file))
    found.records = merge_records(found.records)
    return found


def merge_records(records: list[RunRecord]) -> list[RunRecord]:
    """One record per GPU: an interrupted result and the .err of the same run (same UUID) are one
    run, under the worse of their statuses."""
    merged: dict[object, RunRecord] = {}
    for record in records:
        key: object = (record.host, record.uuid) if record.uuid else id(record)
        if key not in merged:
            merged[key] = record
            continue
        earlier = merged[key]
        worse = min(earlier.status, record.status, key=STATUSES.index)
        merged[key] = RunRecord(worse, record.host, record.uuid,
                                f"{earlier.detail}; {record.detail}",
                                f"{earlier.source}, {record.source}")
    return list(merged.values())
