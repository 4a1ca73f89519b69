"""What the runs of a fleet left behind: each GPU's results, and each run that did not end well.

deploy/slurm writes, per GPU, files sharing one `<name>` (`<host>_<uuid>`, or `<host>_task<P>` /
`<host>_device<D>` where no UUID is known): `<name>.status` (its record, fleet_status),
`<name>.json` (gpubench's) and, for every GPU not done, `<name>.err` (gpubench's stderr, then
`exit status N` once it exited; no exit line where the run never returned, or where a full disk
kept it from being written while `<name>.status` still gives the exit status, which then
stands; one line `gpubench.sbatch: not started: ...`, or `gpubench-pod: not started: ...`, for
a GPU the job never reached). deploy/container/gpubench-pod writes the same files and a pod log:
per GPU its record lines (`gpubench-pod: status=...`, the last one per GPU wins), one JSON
document per line and, for a run that did not exit 0, its stderr and `gpubench-pod: <node>
<uuid>: exit status N`. Each kind of file has one reader in READERS; a file or line that cannot
be read (the system refuses it, it is no regular file, a record or result that is not UTF-8
text, not of its format) is a `damaged` record of the GPU its name gives, named and skipped,
and the rest is read. A stderr (an .err) is
text a crash may have written any bytes into, as is its copy in a pod log: those that are not
UTF-8 are shown escaped (safe_text.log_text), and the exit status line still read. A record
saying `done` needs the GPU's result: without one it is a `missing` result. A result whose
benchmarks failed (fleet_benchmark_errors) is a `failed` run; one whose run_status still says
`running` (gpubench SIGKILLed, or still running) a `killed` one.
A directory holds one job's files: what an earlier job or an earlier attempt of a requeued job
than its newest left there (fleet_jobs) is a `stale` record, not a result, and what it left of a
GPU the newest measured again is superseded, not read (a pod log keeps every run's lines, each
run's of the job its record lines name). Its `peer/`
subdirectory (deploy/slurm --per-node) holds per-node runs over several GPUs:
their results are no GPU's and are not read, their records are (`peer_records`).
"""

import json
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import BinaryIO

from fleet_benchmark_errors import FailedBenchmark, failed_benchmarks
from fleet_health import field_beyond_float
from fleet_jobs import job_of_context, newest_job
from fleet_numbers import beyond_float
from fleet_status import StatusError, attempt_of, describe, parse_record, uuids_of
from gpubench_json import (MAX_RESULT_BYTES, Benchmark, GpubenchJsonError, Result,
                           load_with_document, loads, open_to_read, read_descriptor,
                           special_file)
from safe_text import log_text, one_line

# The statuses of a run that did not end well, worst first: how the report orders them. `stale`
# last: where a GPU has a record of the newest job too, that record's status is the row's.
STATUSES = ("missing", "killed", "failed", "damaged", "interrupted", "stale")
# 128 + SIGKILL, SIGHUP, SIGINT, SIGTERM
_SIGNALLED = {137: "killed", 129: "interrupted", 130: "interrupted", 143: "interrupted"}
_POD_EXIT = re.compile(r"^gpubench-pod: (.*): exit status (.*)$")
_POD_RECORD = "gpubench-pod: status="
# How the lines a pod log holds beside gpubench's stderr start: a JSON document, the pod's own.
_POD_WRITTEN = ("{", "gpubench-pod: ")
_POD_OVER_LIMIT = re.compile(r"^gpubench-pod: (.*): a JSON of \d+ bytes is over the log limit")
# What an exit line names: `<node> <uuid>`, `<node> device0` (no GPU found), or, in logs of an
# earlier gpubench-pod, `<node> device D` (D: the GPU's ordinal).
_POD_GPU = re.compile(r"^(?P<host>.*) (?:(?P<uuid>(?:GPU|MIG)-\S+)|device ?(?P<ordinal>\d+))$")
# The one line of the .err of a GPU never started, as deploy/slurm and deploy/container write it.
_NOT_STARTED = ("gpubench.sbatch: not started", "gpubench-pod: not started")
# deploy/slurm's file names: <host>_<uuid>[_task<P>], <host>_task<P>, <host>_device<D>.
_NAMED_BY_UUID = re.compile(r"^(?P<host>.+?)_(?P<uuid>(?:GPU|MIG)-[0-9A-Za-z-]+)(?:_task\d+)?$")
_NAMED_BY_TASK = re.compile(r"^(?P<host>.+)_(?:task|device)\d+$")
_DEVICE_COMPONENT = re.compile(r"/device:(\d+)(?=/|$)")
_ERR_STATUS = "exit status "
# The exit status line of an .err an earlier deploy script appended to a crash's unfinished last
# line ("...partial textexit status 139"); a line always ended, so the file ends with it.
_GLUED_STATUS = re.compile(r"(?P<text>.+)exit status (?P<status>[0-9]{1,3})")
# gpubench's context run_status until its run ends (then `complete`, `faulted` or
# `interrupted`): what a result left by a SIGKILLed run, or one still running, says.
_NEVER_ENDED = "running"
# An exit status as a shell's $? writes it (0-255), as in fleet_status's records.
_EXIT_STATUS = re.compile(r"[0-9]{1,3}")
# The numbers of a result's context fleet.py computes with, beside its health records.
_CONTEXT_NUMBERS = ("mhz_per_cpu",)
# The files fleet.py reads whole (.err and .status records, limits, --expect-hosts) hold a few
# lines: eight results of the largest size a result file may have is far above any. A pod log
# that is a regular file is read a line at a time, with no bound on its whole (a fleet's
# collected log holds a result line per GPU, each up to the pod's log limit, 8 MiB by default),
# each line up to the largest result.
MAX_TEXT_BYTES = 8 * MAX_RESULT_BYTES
# A line a pod writes of its own, between two GPUs' runs: no run's message.
_LINE_BUFFER_BYTES = 2**20
_POD_DEADLINE = re.compile(r"^gpubench-pod: .*: the pod's deadline \(.*\) has passed")
# The one line of a pod that cannot write a file of its results (a full disk, a file size
# limit), on stderr just before the record line it makes failed; every later record of that
# pod says failed for it, as no further GPU starts.
_POD_CANNOT_WRITE = re.compile(r"^gpubench-pod: (?P<node>\S+): (?P<why>cannot write .*): no "
                               r"further GPU starts$")
# The longest stderr line, or reason, a row quotes: a line of a file can be megabytes long.
MESSAGE_CHARS = 300
NOT_TEXT = "cannot read (not UTF-8 text)"


JobRun = tuple[str | None, int]  # a job (None: not known) and its attempt


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
    job: str | None = None  # in a pod log, the job of the record line before its run

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
    job: str | None = None  # the job that wrote it, where it says (fleet_jobs)
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
    skipped: list[str] = field(default_factory=list)  # peer/ directories: results not read
    peer_records: list[RunRecord] = field(default_factory=list)  # records of peer/ runs
    # Every file or line that cannot be read, also where its run's row holds it (read_inputs).
    damaged: list[RunRecord] = field(default_factory=list)
    # Per directory, what earlier jobs left of GPUs its newest job measured again, in words
    # (without_stale).
    superseded: list[str] = field(default_factory=list)

    def add(self, other: "Found") -> None:
        self.gpus += other.gpus
        self.records += other.records
        self.skipped += other.skipped
        self.peer_records += other.peer_records
        self.damaged += other.damaged
        self.superseded += other.superseded


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
    """The first number of a result's context fleet.py computes with that no finite float
    holds, named with why; None where there is none."""
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
    figures is judged."""
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
    elif not result.benchmarks:
        found.records.append(RunRecord("failed", gpu.host, gpu.uuid,
                                       "no benchmark succeeded", source, job=job))
    by_device: dict[str, list[FailedBenchmark]] = {}
    for failure in failed:
        by_device.setdefault(device_of(failure.name, result, gpu.uuid)[0], []).append(failure)
    for uuid, failures in by_device.items():
        found.records.append(RunRecord("failed", gpu.host, uuid, failures_text(failures), source,
                                       job=job))
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


def damaged_record(path: Path, error: Exception | str) -> Found:
    """A `.status` or `.err` file that cannot be read, joined with the other files of its
    name."""
    return damaged(str(path), error, path.stem, str(path.with_suffix("")))


def read_result_file(path: Path) -> Found:
    try:
        result, document = load_with_document(path, require_benchmarks=False)
        return result_found(str(path), result, failed_benchmarks(document))
    except GpubenchJsonError as error:
        return damaged(str(path), error, path.stem)


def failed_in_line(line: str) -> list[FailedBenchmark]:
    """The failed benchmarks of a pod log's JSON line that `loads` read: parsed again only where
    the line holds the key Google Benchmark marks a failed entry with."""
    return failed_benchmarks(json.loads(line)) if '"error_occurred"' in line else []


def read_bytes(path: Path, label: str | None = None) -> bytes:
    """A file fleet.py reads other than a result (a pod log, a .err or .status record, limits,
    --expect-hosts), bounded as results are: a device such as /dev/zero or a FIFO with no
    writer is one line, not a hang. `label` names it in that line (the path)."""
    label = label or str(path)
    fd, info = opened(path, label)
    return bytes_of(fd, info, label)


def opened(path: Path, label: str) -> tuple[int, os.stat_result]:
    """open_to_read, its failure a FleetInputError naming `label`."""
    try:
        return open_to_read(path)
    except (OSError, ValueError) as error:
        raise unreadable(label, error) from None


def bytes_of(fd: int, info: os.stat_result, label: str) -> bytes:
    """What the descriptor `opened` gave holds, up to MAX_TEXT_BYTES; closed after."""
    try:
        data = read_descriptor(fd, info, MAX_TEXT_BYTES)
    except OSError as error:
        raise unreadable(label, error) from None
    finally:
        os.close(fd)
    if data is None:
        raise FleetInputError(f"{label}: larger than {MAX_TEXT_BYTES // 2**20} MiB, the largest "
                              "file fleet.py reads")
    return data


def unreadable(label: str, error: OSError | ValueError) -> FleetInputError:
    """A file the system refuses to read, named by `label` with the system's reason."""
    return FleetInputError(f"{label}: cannot read ({getattr(error, 'strerror', None) or error})")


def read_text(path: Path, label: str | None = None) -> str:
    """read_bytes, as UTF-8 text."""
    label = label or str(path)
    try:
        return read_bytes(path, label).decode("utf-8")
    except UnicodeDecodeError:
        raise FleetInputError(f"{label}: {NOT_TEXT}") from None


def exit_status(text: str) -> int | None:
    """The status an exit line gives (`exit status N`: N), None where N is not 1-3 digits."""
    return int(text) if _EXIT_STATUS.fullmatch(text) else None


def not_an_exit_status(line: str) -> str:
    return f"not an exit status of 1-3 digits: {line[:80]!r}"


def read_err(path: Path) -> Found:
    """The stderr of a GPU's run that did not end well: with an exit status line, the run
    exited; without one it never returned (killed), or never started (its one line says so),
    unless the record of its run gives an exit status (with_exits_of_records). An exit status
    line glued onto a crash's unfinished last line is read as its own line; one without its
    newline was cut short (the scripts write both at once) and is not read. A last line `exit
    status` not followed by 1-3 digits makes the file damaged. Bytes that are not UTF-8 are text
    a crash wrote, shown escaped (log_text), not damage: the deploy scripts' lines after them are
    ASCII and still read."""
    try:
        text = log_text(read_bytes(path))
    except FleetInputError as error:
        return damaged_record(path, error)
    lines = [line for line in text.splitlines() if line.strip()]
    if lines and text.endswith("\n") and (glued := _GLUED_STATUS.fullmatch(lines[-1])):
        lines[-1:] = [glued["text"], _ERR_STATUS + glued["status"]]
    status, cut_short = None, False
    if lines and lines[-1].startswith(_ERR_STATUS):
        # A full disk can end the append within the line: its digits may be cut too.
        cut_short = not text.endswith("\n")
        status = None if cut_short else exit_status(lines[-1][len(_ERR_STATUS):])
        if status is None and not cut_short:
            return damaged_record(path, not_an_exit_status(lines[-1]))
        lines.pop()
    message = one_line(lines[0], MESSAGE_CHARS) if lines else "(no message)"
    host, uuid = named_gpu(path.stem)
    if status is not None:
        verdict, shown = status_of_exit(status), f"exit status {status}"
    elif message.startswith(_NOT_STARTED) and not cut_short:
        verdict, shown = "interrupted", "never started"
    else:
        verdict = "killed"
        shown = "exit status line cut short" if cut_short else "no exit status: never returned"
    lost = "cut short" if cut_short else "not written"
    return Found(records=[RunRecord(
        verdict, host, uuid, f"{message} ({shown})", str(path), name=str(path.with_suffix("")),
        if_exited=f"{message} (exit status line {lost})" if verdict == "killed" else None)])


def status_record(fields: dict[str, str], source: str, name: str, host: str | None,
                  uuid: str | None) -> RunRecord:
    """The run a status record describes; `done` stands until fleet_inputs finds its result."""
    uuids = uuids_of(fields)
    node = fields.get("node") or host
    detail = describe(fields)
    if len(uuids) > 1:
        detail = f"a run over {len(uuids)} GPUs ({', '.join(uuids)}): {detail}"
    return RunRecord(fields["status"], node, uuids[0] if uuids else uuid, detail, source,
                     name=name, job=fields.get("job") or None, attempt=attempt_of(fields),
                     time=fields.get("time", ""), gpus=tuple(uuids) if len(uuids) > 1 else (),
                     exit=None if fields["exit"] == "none" else int(fields["exit"]))


def read_status(path: Path) -> Found:
    """A `<name>.status` record."""
    try:
        fields = parse_record(read_text(path).splitlines())
    except FleetInputError as error:
        return damaged_record(path, error)
    except StatusError as error:
        return damaged_record(path, f"not a status record: {error}")
    host, uuid = named_gpu(path.stem)
    return Found(records=[status_record(fields, str(path), str(path.with_suffix("")), host,
                                        uuid)])


def read_pod_log(path: Path) -> Found:
    """A pod log of deploy/container/gpubench-pod. Its record lines are read as `.status` files,
    the last one per GPU and job standing; a JSON, exit or over-limit line is of the job of its
    GPU's record line before it (the pod writes one just before each run). An exit line names
    the node and GPU (or, in older logs, the device ordinal, whose UUID the JSON line of the
    same node and ordinal gives). A pod's line saying it cannot write a file of its results
    gives the reason of each failed record of that pod from the record line after it. A JSON or
    pod's line that is not UTF-8 text is damaged alone; in a line of gpubench's stderr, bytes
    that are not UTF-8 are shown escaped (pod_line_text). A log that cannot be read is damaged
    whole."""
    try:
        return pod_log_found(path, pod_log_lines(path))
    except FleetInputError as error:
        return damaged(str(path), error)


def pod_log_found(path: Path, lines: Iterable[bytes | None]) -> Found:
    """What the lines of the pod log `path` hold (read_pod_log)."""
    found = Found()
    # The first line of a failed run's stderr: the lines after its JSON (or its record line
    # before the run, where it left none) up to its exit line.
    message = ""
    uuids: dict[tuple[str, str], str] = {}  # (host, gpu ordinal): uuid
    # A run's lines follow the record line the pod writes just before it: the job of a GPU's
    # last record line is that of its JSON, exit and over-limit lines.
    job_of: dict[str, str | None] = {}  # uuid: the job of its last record line
    records: dict[tuple[str, str, str | None], RunRecord] = {}  # (node, uuid, job): its last
    over_limit: dict[tuple[str, str, str | None], str] = {}  # (node, uuid, job): where its JSON is
    # A pod's reason for its failed records (_POD_CANNOT_WRITE): its line, until the record line
    # after it names the pod (node, task, job); then by pod.
    unwritten: tuple[str, str] | None = None  # (node, reason)
    pod_unwritten: dict[tuple[str, str, str | None], str] = {}
    for number, raw in enumerate(lines, start=1):
        where = f"{path}:{number}"
        if raw is None:
            found.add(damaged(where, f"a line longer than {MAX_RESULT_BYTES // 2**20} MiB, the "
                                     "largest result fleet.py reads"))
            message = ""
            continue
        line = pod_line_text(raw)
        if line is None:
            found.add(damaged(where, NOT_TEXT))
            continue
        if line.startswith("{"):
            message = ""
            try:
                more = result_found(where, loads(line, Path(where), require_benchmarks=False),
                                    failed_in_line(line))
            except GpubenchJsonError as error:
                found.add(damaged(where, error))
                continue
            for gpu in more.gpus:
                uuids[(gpu.host, str(gpu.context.get("gpu_ordinal", "")))] = gpu.uuid
            job = job_of.get(first_uuid(where, more.gpus[0].result)) if more.gpus else None
            more.gpus = [replace(gpu, job=job) for gpu in more.gpus]
            found.add(more)
        elif line.startswith(_POD_RECORD):
            message = ""
            try:
                fields = parse_record(line.removeprefix("gpubench-pod: ").split())
            except StatusError as error:
                found.add(damaged(where, f"not a status record: {error}"))
                continue
            node, gpu = fields.get("node", ""), fields.get("gpu_uuid", "")
            record = status_record(fields, where, f"{path}:{node}_{gpu}", node, None)
            pod = (node, fields.get("task", ""), record.job)
            if unwritten and unwritten[0] == node:
                pod_unwritten.setdefault(pod, unwritten[1])
            unwritten = None
            if record.status == "failed" and pod in pod_unwritten:
                record = replace(record, detail=f"{record.detail}; {pod_unwritten[pod]}")
            job_of[gpu] = record.job
            records[(node, gpu, record.job)] = record
        elif exit_line := _POD_EXIT.match(line):
            status = exit_status(exit_line[2])
            if status is None:
                found.add(damaged(where, not_an_exit_status(line)))
                continue
            host, uuid = pod_gpu(exit_line[1], uuids)
            found.records.append(RunRecord(
                status_of_exit(status), host, uuid,
                f"{message or '(no message)'} (exit status {exit_line[2]})",
                f"{where} ({exit_line[1]})", name=f"{path}:{host}_{uuid or ''}",
                job=job_of.get(uuid or "")))
            message = ""
        elif cannot_write := _POD_CANNOT_WRITE.match(line):
            unwritten = (cannot_write["node"], one_line(cannot_write["why"], MESSAGE_CHARS))
        elif limit := _POD_OVER_LIMIT.match(line):
            host, uuid = pod_gpu(limit[1], uuids)
            over_limit[(host, uuid or "", job_of.get(uuid or ""))] = line.removeprefix(
                "gpubench-pod: ")
        elif line.strip() and not message and not _POD_DEADLINE.match(line):
            message = one_line(line, MESSAGE_CHARS)
    for key, record in records.items():
        if record.status == "done" and key in over_limit:
            record = replace(record, detail=f"{record.detail}; {over_limit[key]}")
        found.records.append(record)
    return found


def pod_line_text(raw: bytes) -> str | None:
    """A pod log's line as text: a line of gpubench's stderr as log_text shows it (a crash can
    write any bytes); a JSON document or a line of the pod's own, records a program reads, only
    where it is UTF-8, else None."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        text = log_text(raw)
        return None if text.startswith(_POD_WRITTEN) else text


def pod_log_lines(path: Path) -> Iterator[bytes | None]:
    """The lines of a pod log without their line ends, None for one longer than the largest
    result (MAX_RESULT_BYTES): a regular file a line at a time, so a fleet's collected log of any
    size is read; anything else (a FIFO, a device such as /dev/zero) whole, as read_bytes bounds
    it. FleetInputError where it cannot be opened or read."""
    fd, info = opened(path, str(path))
    if not stat.S_ISREG(info.st_mode):
        return iter(bytes_of(fd, info, str(path)).splitlines())
    return _bounded_lines(path, open(fd, "rb", buffering=_LINE_BUFFER_BYTES))


def _bounded_lines(path: Path, lines: BinaryIO) -> Iterator[bytes | None]:
    with lines:
        try:
            while line := lines.readline(MAX_RESULT_BYTES + 1):
                if len(line) <= MAX_RESULT_BYTES or line.endswith(b"\n"):
                    yield line.rstrip(b"\r\n")
                    continue
                while (rest := lines.readline(_LINE_BUFFER_BYTES)) and not rest.endswith(b"\n"):
                    pass  # the rest of a line too long to keep
                yield None
        except OSError as error:
            raise unreadable(str(path), error) from None


def pod_gpu(named: str, uuids: dict[tuple[str, str], str]) -> tuple[str, str | None]:
    """The host and UUID an exit line's `<node> <uuid>` (or `<node> device D`) names."""
    match = _POD_GPU.match(named)
    if not match:
        return named, None
    if match["uuid"]:
        return match["host"], match["uuid"]
    return match["host"], uuids.get((match["host"], match["ordinal"]))


# One reader per kind of file a scheduler leaves.
READERS: dict[str, Callable[[Path], Found]] = {
    ".json": read_result_file,
    ".jsonl": read_pod_log,
    ".log": read_pod_log,  # a pod log collected under another name
    ".err": read_err,
    ".status": read_status,
}
# deploy/slurm's subdirectory of per-node peer runs: one result over several GPUs, not a GPU's.
PEER_DIRECTORY = "peer"
PEER_RECORDS = (".status", ".err")  # what is read of it beside a directory's per-GPU files


def cannot_read(path: Path, error: OSError) -> FleetInputError:
    """A path that could not be listed or examined, named: the one the system names, else
    `path`."""
    return FleetInputError(f"{error.filename or path}: cannot read ({error.strerror or error})")


def files_read(path: Path) -> list[Path]:
    """The files read for one input: every entry but a subdirectory that READERS knows by its
    name in a directory, or the file itself."""
    try:
        if path.is_dir():
            return sorted(p for p in path.iterdir() if p.suffix in READERS and not p.is_dir())
        if path.exists() or path.is_symlink():
            return [path]
    except OSError as error:
        raise cannot_read(path, error) from None
    raise FleetInputError(f"{path}: no such file or directory")


def read_listed(file: Path) -> Found:
    """A file a directory lists, by its reader; one that is no regular file is damaged."""
    if problem := special_file(file):
        if file.suffix in (".status", ".err"):
            return damaged_record(file, problem)
        return damaged(str(file), problem, file.stem)
    return READERS[file.suffix](file)


def peer_directory(path: Path) -> Path | None:
    """The `peer/` subdirectory of a directory, where it holds a file READERS knows."""
    peer = path / PEER_DIRECTORY
    try:
        if path.is_dir() and peer.is_dir() and any(p.suffix in READERS for p in peer.iterdir()):
            return peer
    except OSError as error:
        raise cannot_read(peer, error) from None
    return None


def read_inputs(paths: Iterable[str]) -> Found:
    """Every file READERS knows in the directories given (not their subdirectories), and the
    files given by name; of a directory's `peer/` runs, their records (their results are listed
    in skipped). What an earlier job or attempt left in a directory is stale (without_stale)."""
    by_directory: dict[str, Found] = {}
    found = Found()
    for name in paths:
        path = Path(name)
        for file in files_read(path):
            of_directory(by_directory, file.parent).add(
                READERS.get(file.suffix, read_result_file)(file) if file == path
                else read_listed(file))
        if peer := peer_directory(path):
            found.skipped.append(str(peer))
            # A peer run's files are named by its node alone.
            of_directory(by_directory, path).peer_records += [
                replace(record, host=record.host or file.stem)
                for file in files_read(peer) if file.suffix in PEER_RECORDS
                for record in read_listed(file).records]
    for where, directory in by_directory.items():
        directory.records = with_exits_of_records(directory.records)
        directory.peer_records = with_exits_of_records(directory.peer_records)
        found.damaged += [r for r in directory.records + directory.peer_records
                          if r.status == "damaged"]
        found.add(without_stale(directory, where))
    found.records = [said_once(r) for r in merge_records(results_of_done(found))]
    found.peer_records = [said_once(r) for r in
                          merge_records([r for r in found.peer_records if r.status != "done"])]
    return found


def with_exits_of_records(records: list[RunRecord]) -> list[RunRecord]:
    """The records, each .err without its exit status line given the status of the record of its
    name where that record gives an exit status: the run returned. The deploy scripts append
    that line, then write the record, and where the disk is full the append fails while the
    record, written in the place of the one it replaces, still says how the run ended. Without
    such a record the .err stays `killed`."""
    exits = {r.name: r for r in records if r.name and r.exit is not None}
    return [replace(r, status=exits[r.name].status, detail=r.if_exited, if_exited=None)
            if r.if_exited is not None and r.name in exits else r for r in records]


def of_directory(by_directory: dict[str, Found], directory: Path) -> Found:
    """What was read in `directory` so far (however the inputs spelled it)."""
    return by_directory.setdefault(os.path.realpath(directory), Found())


def without_stale(found: Found, directory: str) -> Found:
    """What one directory (its peer/ records with it) holds, less what a job earlier than its
    newest, or an earlier attempt of its newest job (fleet_jobs), left there: those results and
    records become `stale` records, each naming its job, and their figures are not judged. Of a
    GPU the newest run has a result of, what earlier runs left is superseded: dropped, as the
    newest run's files replace theirs, and said once in `superseded`. Only a pod log holds
    both: its lines are never replaced (a Job applied again under its name, its earlier pods'
    logs collected with the later's)."""
    records, peer_records, result_runs = with_runs(found)
    latest: dict[str, str] = {job: "" for job, _ in result_runs if job}
    for record in records + peer_records:
        if record.job:
            latest[record.job] = max(latest.get(record.job, ""), record.time)
    if not latest:
        return Found(found.gpus, records, found.skipped, peer_records)
    newest = newest_job(latest)
    runs = result_runs + [(r.job, r.attempt) for r in records + peer_records]
    newest_run = (newest, max(attempt for job, attempt in runs if job == newest))
    attempts_said = any(attempt for _, attempt in runs)

    def named(run: JobRun) -> str:
        return f"{run[0]} attempt {run[1]}" if attempts_said else str(run[0])

    def stale_of(run: JobRun) -> str:
        """How a stale record's job is said, "" where the run is not stale."""
        if run[0] is None or run == newest_run:
            return ""
        return f"job {named(run)} (newest here: {named(newest_run)})"

    def judged(record: RunRecord) -> RunRecord:
        said = stale_of((record.job, record.attempt))
        return replace(record, status="stale", stale_of=said) if said else record

    measured = {gpu.uuid for gpu, run in zip(found.gpus, result_runs) if run == newest_run}
    superseded: dict[str, set[str]] = {}  # a GPU measured again: the earlier runs of it

    def kept(run: JobRun, uuid: str | None) -> bool:
        """Whether what `run` left of a GPU is not superseded (noted where it is)."""
        if not stale_of(run) or uuid not in measured:
            return True
        superseded.setdefault(uuid, set()).add(named(run))
        return False

    gpus = [(gpu, run) for gpu, run in zip(found.gpus, result_runs) if kept(run, gpu.uuid)]
    records = [r for r in records if kept((r.job, r.attempt), r.uuid)]
    stale_results = [RunRecord("stale", gpu.host, gpu.uuid, "its result", gpu.source, job=run[0],
                               attempt=run[1], stale_of=stale_of(run))
                     for gpu, run in gpus if stale_of(run)]
    said = []
    if superseded:
        earlier = ", ".join(sorted(set().union(*superseded.values())))
        said.append(one_line(f"{directory}: what job {earlier} left of {len(superseded)} GPU(s) "
                             f"the newest job here, {named(newest_run)}, measured again is not "
                             "judged"))
    return Found([gpu for gpu, run in gpus if not stale_of(run)],
                 stale_results + [judged(r) for r in records], found.skipped,
                 [judged(r) for r in peer_records], superseded=said)


def with_runs(found: Found) -> tuple[list[RunRecord], list[RunRecord], list[JobRun]]:
    """One directory's records and peer records with the job and attempt that wrote them, and
    those of each of its results. A `.status` record says its own; an .err (or a pod log's exit
    line), those of the record of its name. A result's job is the one its context names, else
    that of its GPU's record; its attempt that record's where it is of the same job (a result
    names none), else 0; the records a result gives (interrupted, failed) take the result's."""
    by_name = {r.name: r for r in found.records + found.peer_records if r.name and r.job}

    def with_job(record: RunRecord) -> RunRecord:
        if record.job or record.name not in by_name:
            return record
        return replace(record, job=by_name[record.name].job,
                       attempt=by_name[record.name].attempt)

    records = [with_job(r) for r in found.records]
    sources = {gpu.source for gpu in found.gpus}
    by_uuid = {r.uuid: r for r in records if r.uuid and r.job and r.source not in sources}

    def run_of(gpu: Gpu) -> JobRun:
        record = by_uuid.get(first_uuid(gpu.source, gpu.result))
        job = job_of_context(gpu.context) or gpu.job or (record.job if record else None)
        return job, record.attempt if record is not None and record.job == job else 0

    result_runs = [run_of(gpu) for gpu in found.gpus]
    run_of_source = dict(zip((gpu.source for gpu in found.gpus), result_runs))
    records = [replace(r, job=run_of_source[r.source][0], attempt=run_of_source[r.source][1])
               if r.source in run_of_source else r for r in records]
    return records, [with_job(r) for r in found.peer_records], result_runs


def results_of_done(found: Found) -> list[RunRecord]:
    """The records less those saying `done` whose result was read (or found damaged): a `done`
    without one is a `missing` result."""
    read = {gpu.uuid for gpu in found.gpus} | {gpu.source for gpu in found.gpus}
    others = {record.key for record in found.records if record.status != "done"}
    records = []
    for record in found.records:
        if record.status != "done":
            records.append(record)
        elif not (record.uuid in read or f"{record.name}.json" in read
                  or record.key in others):
            records.append(RunRecord("missing", record.host, record.uuid,
                                     f"no result: {record.detail}", record.source,
                                     name=record.name))
    return records


def merge_records(records: list[RunRecord]) -> list[RunRecord]:
    """One record per run, under the worst of their statuses: first the files of one name
    (`<name>.status` and `<name>.err`, whatever their name says), then those of one GPU (an
    interrupted result, its .err and its record; a pod log's exit and record lines)."""
    same_files = merge_by(records, lambda r: ("name", r.name) if r.name else id(r))
    return merge_by(same_files, lambda r: r.key)


def said_once(record: RunRecord) -> RunRecord:
    """The record with its stale job said before its details."""
    if not record.stale_of:
        return record
    return replace(record, detail=f"{record.stale_of}: {record.detail}", stale_of="")


def joined_details(earlier: RunRecord, record: RunRecord) -> RunRecord:
    """The details of two records of one run: their stale job said once where it is one job,
    before each detail where they differ."""
    if earlier.stale_of == record.stale_of:
        return replace(earlier, detail=f"{earlier.detail}; {record.detail}")
    return replace(earlier, detail=f"{said_once(earlier).detail}; {said_once(record).detail}",
                   stale_of="")


def joined_sources(earlier: str, source: str) -> str:
    """The files of two records, each once (a result's interrupted and failed records share
    one)."""
    return earlier if source in earlier.split(", ") else f"{earlier}, {source}"


def merge_by(records: list[RunRecord], key: Callable[[RunRecord], object]) -> list[RunRecord]:
    merged: dict[object, RunRecord] = {}
    for record in records:
        if key(record) not in merged:
            merged[key(record)] = record
            continue
        earlier = merged[key(record)]
        merged[key(record)] = replace(
            joined_details(earlier, record),
            status=min(earlier.status, record.status, key=STATUSES.index),
            host=earlier.host or record.host, uuid=earlier.uuid or record.uuid,
            source=joined_sources(earlier.source, record.source),
            name=earlier.name or record.name,
            job=earlier.job or record.job, time=max(earlier.time, record.time),
            gpus=earlier.gpus or record.gpus)
    return list(merged.values())
