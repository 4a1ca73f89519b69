"""What gpubench-tools fleet reads of a fleet's runs: each GPU's figures, and each run that did not
end well.

A Gpu is one GPU's figures: a result file's, or one device's share of a result over several
(split_devices). A RunRecord is a run that did not end well, or a GPU expected but not found, with a
status of STATUSES; a Found is what one file, line or directory holds of both, and of a node's
peer run its PeerRun (reading/fleet/peer_runs.py). Every reader of a fleet's files
(reading/fleet/inputs.py, pod_log.py, peer_runs.py) makes its Found of these, so a result, a status
record, an exit status and a file or line that cannot be read say the same wherever they are found:
result_found for a result, status_record for a status record, status_of_exit for an exit status,
damaged for what cannot be read.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.reading.fleet.benchmark_errors import FailedBenchmark
from gpubench_tools.reading.fleet.compact import compact_results
from gpubench_tools.reading.fleet.health_records import field_beyond_float
from gpubench_tools.reading.fleet.jobs import job_of_context
from gpubench_tools.reading.fleet.numbers import beyond_float
from gpubench_tools.reading.fleet.status import attempt_of, describe, uuids_of
from gpubench_tools.reading.results import Benchmark, Result
from gpubench_tools.reading.safe_text import one_line

if TYPE_CHECKING:  # peer_runs.py reads a peer run into records of this module
    from gpubench_tools.reading.fleet.peer_runs import PeerRun

# The statuses of a run that did not end well, worst first: how the report orders them. `stale`
# after them: where a GPU has a record of the newest job too, that record's status is the row's.
# `duplicate`: a result of a GPU another, later result names (models/fleet/duplicates.py).
# `too few`: a GPU with fewer results than the processes per GPU asked for
# (models/fleet/processes.py).
STATUSES = ("missing", "killed", "failed", "damaged", "interrupted", "too few", "stale",
            "duplicate")
# 128 + SIGKILL, SIGHUP, SIGINT, SIGTERM
_SIGNALLED = {137: "killed", 129: "interrupted", 130: "interrupted", 143: "interrupted"}
# deploy/slurm's file names: <host>_<uuid>[_task<P>], <host>_task<P>, <host>_device<D>.
_NAMED_BY_UUID = re.compile(r"^(?P<host>.+?)_(?P<uuid>(?:GPU|MIG)-[0-9A-Za-z-]+)(?:_task\d+)?$")
_NAMED_BY_TASK = re.compile(r"^(?P<host>.+)_(?:task|device)\d+$")
_DEVICE_COMPONENT = re.compile(r"/device:(\d+)(?=/|$)")
# gpubench's context run_status until its run ends (then `complete`, `faulted` or
# `interrupted`): what a result left by a SIGKILLed run, or one still running, says.
_NEVER_ENDED = "running"
# A run_status of a run that ended early, and its row's status.
_ENDED_BADLY = {"interrupted": "interrupted", "faulted": "failed"}
# An exit status as a shell's $? writes it (0-255), as in reading/fleet/status.py's records.
_EXIT_STATUS = re.compile(r"[0-9]{1,3}")
# The numbers of a result's context gpubench-tools fleet computes with, beside its health records.
_CONTEXT_NUMBERS = ("mhz_per_cpu",)
# The longest stderr line, or reason, a row quotes: a line of a file can be megabytes long.
MESSAGE_CHARS = 300


class FleetInputError(Exception):
    """Input gpubench-tools fleet cannot use at all; str() is one line."""


@dataclass(frozen=True)
class Gpu:
    """One GPU's figures: a whole result file, or one device's share of a --device=N,M run."""
    source: str  # file, or file:line for a pod log
    result: Result
    uuid: str
    host: str
    gpu_name: str
    benchmarks: dict[str, Benchmark]  # names without the /device:N of a several-device run
    job: str | None = None  # in a pod log, the job of the record line before its run
    # Judged by the median of several processes (models/fleet/processes.py): their results, the
    # latest (`result`) first; empty for a GPU of one result.
    processes: tuple[Result, ...] = ()

    @property
    def context(self) -> dict:
        return self.result.context

    @property
    def label(self) -> str:
        return f"{self.host} {self.uuid}"


@dataclass(frozen=True)
class RunRecord:
    """A run that did not end well (a status of STATUSES), or a GPU expected but not found."""
    status: str  # "done" only in a status record read_inputs has not matched with its result
    host: str | None
    uuid: str | None  # None where the run left no UUID (gpubench found no GPU, or was killed)
    detail: str
    source: str
    count: int = 1  # GPUs it stands for: a host expected with 8 GPUs and none found is one record
    name: str | None = None  # the run's files less their suffix: joins a UUID-less run's files
    job: str | None = None  # the job that wrote it, where it says (reading/fleet/jobs.py)
    attempt: int = 0  # the attempt of its job (a requeued Slurm job runs again under its id)
    time: str = ""  # when a status record was written (its `time`)
    gpus: tuple[str, ...] = ()  # every GPU of a run over several (a peer run); uuid: the first
    # A stale record's job as the report names it ("job 9 (newest here: 10)"), said once before
    # the details of that job's files (said_once); "" for a record of the newest job.
    stale_of: str = ""
    exit: int | None = None  # the exit status a status record gives, None where `none`
    # An .err without its whole exit status line (killed): its detail where the record of its
    # run gives the exit status, and the status is then the record's (with_exits_of_records).
    if_exited: str | None = None

    @property
    def key(self) -> object:
        """What makes two records one run: its GPU's UUID (the host a result's context names may
        differ from the node a record names), else its files' name, else nothing."""
        if self.uuid:
            return ("uuid", self.uuid)
        return ("name", self.name) if self.name else id(self)


@dataclass
class Found:
    gpus: list[Gpu] = field(default_factory=list)
    records: list[RunRecord] = field(default_factory=list)
    peer_records: list[RunRecord] = field(default_factory=list)  # records of peer/ runs
    peer_runs: "list[PeerRun]" = field(default_factory=list)  # the peer/ runs' results
    # Every file or line that cannot be read, also where its run's row holds it (read_inputs).
    damaged: list[RunRecord] = field(default_factory=list)
    # Per directory, what earlier jobs left of GPUs its newest job measured again, in words
    # (without_stale).
    superseded: list[str] = field(default_factory=list)
    # (job, file) of each allocation deploy/slurm wrote (job<JOB>.expected_hosts); of a
    # directory, only its newest job's is kept (without_stale).
    allocations: list[tuple[str, str]] = field(default_factory=list)

    def add(self, other: "Found") -> None:
        self.gpus += other.gpus
        self.records += other.records
        self.peer_records += other.peer_records
        self.peer_runs += other.peer_runs
        self.damaged += other.damaged
        self.superseded += other.superseded
        self.allocations += other.allocations


# The context keys naming a result's host, the scheduler's first.
HOST_KEYS = ("slurm_node", "k8s_node", "host_name")


def host_of(context: dict) -> str:
    for key in HOST_KEYS:
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


def first_uuid(source: str, result: Result) -> str:
    """The UUID of a run's first device (the context's gpu_uuid), else its file."""
    return str(result.context.get("gpu_uuid") or source)


def device_of(name: str, result: Result, first: str) -> tuple[str, str, str]:
    """The UUID and model of the device a benchmark belongs to, and its name without the device.
    A --device=N,M run names its single-GPU benchmarks .../device:N and describes each device in
    the context key device_N ("name, uuid, bus"); benchmarks of no one device (peer copies,
    copies to every device at once) belong to the first device."""
    match = _DEVICE_COMPONENT.search(name)
    if not match:
        return first, result.gpu_name, name
    plain = _DEVICE_COMPONENT.sub("", name, count=1)
    described = str(result.context.get(f"device_{match[1]}", "")).rsplit(", ", 2)
    if len(described) == 3:
        return described[1], described[0], plain
    return f"{first} device {match[1]}", result.gpu_name, plain


def split_devices(source: str, result: Result) -> list[Gpu]:
    """One Gpu per device of the run (device_of). GpubenchJsonError where two names are one
    benchmark of one GPU (`X` and `X/device:N` of the first device, or `/device:N` and
    `/device:M` whose context names one GPU): one would replace the other, whichever the file
    lists later."""
    host = host_of(result.context)
    first = first_uuid(source, result)
    gpus: dict[str, Gpu] = {}
    for name, bench in result.benchmarks.items():
        uuid, gpu_name, plain = device_of(name, result, first)
        gpu = gpus.setdefault(uuid, Gpu(source, result, uuid, host, gpu_name, {}))
        if plain in gpu.benchmarks:
            raise GpubenchJsonError(f"{source}: {one_line(plain, 200)} is named both "
                                    f"{device_naming(gpu.benchmarks[plain].name, name)}")
        gpu.benchmarks[plain] = bench
    # A run in which no benchmark completed still accounts for its GPU.
    return list(gpus.values()) or [Gpu(source, result, first, host, result.gpu_name, {})]


def device_naming(one: str, other: str) -> str:
    """How two names of one benchmark differ: `with and without /device:N`, or
    `/device:N and /device:M (one GPU in the context)`."""
    devices = [match[1] for name in (one, other) if (match := _DEVICE_COMPONENT.search(name))]
    if len(devices) == 1:
        return f"with and without /device:{devices[0]}"
    return f"/device:{devices[0]} and /device:{devices[1]} (one GPU in the context)"


def context_beyond_float(context: dict) -> str | None:
    """The first number of a result's context gpubench-tools fleet computes with that no finite
    float holds, named with why; None where there is none."""
    for key in _CONTEXT_NUMBERS:
        if why := beyond_float(context.get(key)):
            return f"context {key}: {why}"
    if why := field_beyond_float(context):
        return f"context {why}"
    return None


def result_found(source: str, result: Result, failed: Sequence[FailedBenchmark] = ()) -> Found:
    """The GPUs of a result, and a record where it did not end well: interrupted, never ended
    (`killed`: its run_status still `running`), no benchmark succeeded, or benchmarks that
    failed (`failed`, from its document). A result whose context holds a number no float holds
    (context_beyond_float) is a `damaged` record of the GPU its context names, and none of its
    figures is judged. Its GPUs keep what judgement reads (reading/fleet/compact.py)."""
    if problem := context_beyond_float(result.context):
        uuid = str(result.context.get("gpu_uuid") or "") or None
        return Found(records=[RunRecord("damaged", host_of(result.context), uuid, problem,
                                        source)])
    found = Found(split_devices(source, result))
    job = job_of_context(result.context)
    gpu = found.gpus[0]
    completed = sum(len(g.benchmarks) for g in found.gpus)
    if "interrupted" in result.context:
        found.records.append(RunRecord(
            "interrupted", gpu.host, gpu.uuid,
            f"stopped by {result.context_text('interrupted')} after {completed} benchmark(s)",
            source, job=job))
    elif result.context.get("run_status") == _NEVER_ENDED:
        found.records.append(RunRecord(
            "killed", gpu.host, gpu.uuid,
            f"run_status {_NEVER_ENDED}: the run never ended (killed, or still running) after "
            f"{completed} benchmark(s)", source, job=job))
    elif (status := result.context.get("run_status")) in _ENDED_BADLY and not failed:
        # gpubench says its run ended early, yet no benchmark says why: no row would name it.
        found.records.append(RunRecord(
            _ENDED_BADLY[status], gpu.host, gpu.uuid,
            f"run_status {status} after {completed} benchmark(s), and no benchmark with an "
            "error", source, job=job))
    elif not result.benchmarks:
        found.records.append(RunRecord("failed", gpu.host, gpu.uuid,
                                       "no benchmark succeeded", source, job=job))
    by_device: dict[str, list[FailedBenchmark]] = {}
    for failure in failed:
        by_device.setdefault(device_of(failure.name, result, gpu.uuid)[0], []).append(failure)
    for uuid, failures in by_device.items():
        found.records.append(RunRecord("failed", gpu.host, uuid, failures_text(failures), source,
                                       job=job))
    # What judgement reads of each GPU, and no more: a fleet holds thousands.
    found.gpus = compact_results(found.gpus, result)
    return found


def failures_text(failures: list[FailedBenchmark]) -> str:
    """The first failure's benchmark and message, escaped and bounded: one cell of the report."""
    first = f"{one_line(failures[0].name, 200)}: {one_line(failures[0].message, 300)}"
    if len(failures) == 1:
        return f"benchmark failed: {first}"
    return f"{len(failures)} benchmarks failed, the first {first}"


def damaged(source: str, error: Exception | str, stem: str = "", name: str | None = None
            ) -> Found:
    """A file or line that cannot be read: a `damaged` record of the GPU its file's name
    (`stem`) gives, saying why in one escaped line; `name` joins it with its run's other files."""
    host, uuid = named_gpu(stem)
    problem = one_line(str(error).removeprefix(f"{source}: "), 300)
    return Found(records=[RunRecord("damaged", host, uuid, problem, source, name=name)])


def exit_status(text: str) -> int | None:
    """The status an exit line gives (`exit status N`: N), None where N is not 1-3 digits."""
    return int(text) if _EXIT_STATUS.fullmatch(text) else None


def not_an_exit_status(line: str) -> str:
    return f"not an exit status of 1-3 digits: {line[:80]!r}"


def status_record(fields: dict[str, str], source: str, name: str, host: str | None,
                  uuid: str | None) -> RunRecord:
    """The run a status record describes; `done` stands until reading/fleet/inputs.py finds its
    result."""
    uuids = uuids_of(fields)
    node = fields.get("node") or host
    detail = describe(fields)
    if len(uuids) > 1:
        detail = f"a run over {len(uuids)} GPUs ({', '.join(uuids)}): {detail}"
    # A record gpubench left `running` (--status-out): its run never ended.
    status = "killed" if fields["status"] == "running" else fields["status"]
    return RunRecord(status, node, uuids[0] if uuids else uuid, detail, source,
                     name=name, job=fields.get("job") or None, attempt=attempt_of(fields),
                     time=fields.get("time", ""), gpus=tuple(uuids) if len(uuids) > 1 else (),
                     exit=None if fields["exit"] == "none" else int(fields["exit"]))
