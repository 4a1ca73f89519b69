"""What a pod log of deploy/container/gpubench-pod holds: the runs of a pod, or of every pod of a
fleet where their logs are collected into one file.

Per GPU, the pod writes its record lines (`gpubench-pod: status=...`, the record of a `.status` file
on one line, reading/fleet/status.py), one JSON document per line (gpubench's result) and, for a run
that did not exit 0, its stderr and `gpubench-pod: <node> <uuid>: exit status N`. Its own lines say
what kept a result out of the log (over the log limit, a file it cannot write), that the pod's
deadline passed, or how its peer run over all its GPUs ended: that run's record and JSON are in
the results volume's `peer/` alone, read from there (reading/fleet/peer_runs.py). A log that is a
regular file is read a line at a time, each line up to the largest result, so a fleet's collected
log of any size is read.
"""

import json
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import BinaryIO

from gpubench_tools.reading.bounded_read import MAX_RESULT_BYTES
from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.reading.fleet.benchmark_errors import FailedBenchmark, failed_benchmarks
from gpubench_tools.reading.fleet.files import NOT_TEXT, bytes_of, opened, unreadable
from gpubench_tools.reading.fleet.records import (
    MESSAGE_CHARS,
    FleetInputError,
    Found,
    RunRecord,
    damaged,
    exit_status,
    first_uuid,
    not_an_exit_status,
    result_found,
    status_of_exit,
    status_record,
)
from gpubench_tools.reading.fleet.status import StatusError, parse_record
from gpubench_tools.reading.result_file import loads
from gpubench_tools.reading.safe_text import log_text, one_line

_POD_EXIT = re.compile(r"^gpubench-pod: (.*): exit status (.*)$")
_POD_RECORD = "gpubench-pod: status="
# How the lines a pod log holds beside gpubench's stderr start: a JSON document, the pod's own.
_POD_WRITTEN = ("{", "gpubench-pod: ")
_POD_OVER_LIMIT = re.compile(r"^gpubench-pod: (.*): a JSON of \d+ bytes is over the log limit")
# What an exit line names: `<node> <uuid>`, `<node> device0` (no GPU found), or, in logs of an
# earlier gpubench-pod, `<node> device D` (D: the GPU's ordinal).
_POD_GPU = re.compile(r"^(?P<host>.*) (?:(?P<uuid>(?:GPU|MIG)-\S+)|device ?(?P<ordinal>\d+))$")
# How much of a pod log is read at a time: its buffer, and each read past a line too long to
# keep.
_LINE_BUFFER_BYTES = 2**20
# Lines a pod writes of its own, between two GPUs' runs or after them: no run's message.
_POD_DEADLINE = re.compile(r"^gpubench-pod: .*: the pod's deadline \(.*\) has passed")
_POD_PEER_RUN = re.compile(r"^gpubench-pod: .*: the peer run over \d+ GPUs: ")
# The one line of a pod that cannot write a file of its results (a full disk, a file size
# limit), on stderr just before the record line it makes failed; every later record of that
# pod says failed for it, as no further GPU starts.
_POD_CANNOT_WRITE = re.compile(r"^gpubench-pod: (?P<node>\S+): (?P<why>cannot write .*): no "
                               r"further GPU starts$")


def failed_in_line(line: str) -> list[FailedBenchmark]:
    """The failed benchmarks of a pod log's JSON line that `loads` read: parsed again only where
    the line holds the key Google Benchmark marks a failed entry with."""
    return failed_benchmarks(json.loads(line)) if '"error_occurred"' in line else []


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
                                     "largest result gpubench-tools fleet reads"))
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
        elif (line.strip() and not message and not _POD_DEADLINE.match(line)
              and not _POD_PEER_RUN.match(line)):
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
