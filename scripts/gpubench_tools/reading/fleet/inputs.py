"""What the runs of a fleet left behind: each GPU's results, and each run that did not end well.

deploy/slurm writes, per GPU, files sharing one `<name>` (`<host>_<uuid>`, or `<host>_task<P>` /
`<host>_device<D>` where no UUID is known): `<name>.status` (its record, reading/fleet/status.py),
`<name>.json` (gpubench's; read compressed too, as `<name>.json.gz`, `.xz` or `.bz2`) and, for every
GPU not done, `<name>.err` (gpubench's stderr, then `exit status N` once it exited; no exit line
where the run never returned, or where a full disk kept it from being written while `<name>.status`
still gives the exit status, which then stands; one line `gpubench.sbatch: not started: ...`, or
`gpubench-pod: not started: ...`, for a GPU the job never reached). deploy/container/gpubench-pod
writes the same files and a pod log: per GPU its record lines (`gpubench-pod: status=...`, the last
one per GPU wins), one JSON document per line and, for a run that did not exit 0, its stderr and
`gpubench-pod: <node> <uuid>: exit status N`. deploy/slurm's batch step also writes what Slurm
allocated the job, `job<JOB>.expected_hosts` (the format of --expect-hosts,
reading/fleet/expected.py). Each kind of file has one reader in READERS; a file or line that cannot
be read (the system refuses it, it is no regular file, a record or result that is not UTF-8 text,
not of its format) is a `damaged` record of the GPU its name gives, named and skipped, and the rest
is read. A stderr (an .err) is text a crash may have written any bytes into, as is its copy in a pod
log: those that are not UTF-8 are shown escaped (safe_text.log_text), and the exit status line
still read. A record saying `done` needs the GPU's result: without one it is a `missing` result. A
result whose benchmarks failed (reading/fleet/benchmark_errors.py) is a `failed` run; one whose
run_status still says `running` (gpubench SIGKILLed, or still running) a `killed` one.

A directory holds one job's files: what an earlier job or an earlier attempt of a requeued job than
its newest left there (reading/fleet/jobs.py) is a `stale` record, not a result, and what it left of
a GPU the newest measured again is superseded, not read (a pod log keeps every run's lines, each
run's of the job its record lines name); of the allocations, the newest job's alone is kept. Its
`peer/` subdirectory (deploy/slurm's one task per node) holds per-node runs over several GPUs:
their results are no GPU's, each is a node's PeerRun (reading/fleet/peer_runs.py), and their
records are `peer_records`, held to the same rules (a `done` without its result is `missing`, an
earlier job's run `stale`).
"""

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from gpubench_tools.reading.bounded_read import special_file
from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.reading.fleet.benchmark_errors import failed_benchmarks
from gpubench_tools.reading.fleet.files import read_bytes, read_text
from gpubench_tools.reading.fleet.jobs import job_of_context, newest_job
from gpubench_tools.reading.fleet.peer_runs import PeerRun, read_peer_result
from gpubench_tools.reading.fleet.pod_log import read_pod_log
from gpubench_tools.reading.fleet.records import (
    MESSAGE_CHARS,
    STATUSES,
    FleetInputError,
    Found,
    Gpu,
    RunRecord,
    damaged,
    exit_status,
    first_uuid,
    named_gpu,
    not_an_exit_status,
    result_found,
    status_of_exit,
    status_record,
)
from gpubench_tools.reading.fleet.status import StatusError, parse_record
from gpubench_tools.reading.result_file import RESULT_SUFFIXES, load_with_document
from gpubench_tools.reading.safe_text import log_text, one_line

# The one line of the .err of a GPU never started, as deploy/slurm and deploy/container write it.
_NOT_STARTED = ("gpubench.sbatch: not started", "gpubench-pod: not started")
_ERR_STATUS = "exit status "
# deploy/slurm's allocation of job JOB: job<JOB>.expected_hosts.
_ALLOCATION = re.compile(r"job(?P<job>.+)")
# The exit status line of an .err an earlier deploy script appended to a crash's unfinished last
# line ("...partial textexit status 139"); a line always ended, so the file ends with it.
_GLUED_STATUS = re.compile(r"(?P<text>.+)exit status (?P<status>[0-9]{1,3})")


JobRun = tuple[str | None, int]  # a job (None: not known) and its attempt


def kind_of(path: Path) -> str:
    """A file's kind by its name, as READERS knows it: a result's `.json` also where it is
    compressed (result_file reads it by its content), else its suffix."""
    return ".json" if path.name.endswith(RESULT_SUFFIXES) else path.suffix


def stem_of(path: Path) -> str:
    """A file's name without its kind: `<name>` of `<name>.json.gz` as of `<name>.json`."""
    suffix = next((s for s in RESULT_SUFFIXES if path.name.endswith(s)), None)
    return path.name.removesuffix(suffix) if suffix else path.stem


def damaged_record(path: Path, error: Exception | str) -> Found:
    """A `.status` or `.err` file that cannot be read, joined with the other files of its
    name."""
    return damaged(str(path), error, path.stem, str(path.with_suffix("")))


def read_result_file(path: Path) -> Found:
    try:
        result, document = load_with_document(path, require_benchmarks=False)
        return result_found(str(path), result, failed_benchmarks(document))
    except GpubenchJsonError as error:
        return damaged(str(path), error, stem_of(path))


def read_err(path: Path) -> Found:
    """The stderr of a GPU's run that did not end well: with an exit status line, the run
    exited; without one it never returned (killed), or never started (its one line says so),
    unless the record of its run gives an exit status (with_exits_of_records). An exit status
    line glued onto a crash's unfinished last line is read as its own line; one without its
    newline was cut short (the deploy scripts write both at once) and is not read. A last line `exit
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


def read_allocation(path: Path) -> Found:
    """deploy/slurm's `job<JOB>.expected_hosts`: what Slurm allocated job JOB, read once the
    directory's newest job is known (without_stale); a file otherwise named is damaged."""
    if not (match := _ALLOCATION.fullmatch(path.stem)):
        return damaged(str(path), "not named job<JOB>.expected_hosts: of no known job")
    return Found(allocations=[(match["job"], str(path))])


# One reader per kind of file a scheduler leaves.
READERS: dict[str, Callable[[Path], Found]] = {
    ".json": read_result_file,
    ".jsonl": read_pod_log,
    ".log": read_pod_log,  # a pod log collected under another name
    ".err": read_err,
    ".status": read_status,
    ".expected_hosts": read_allocation,
}
# deploy/slurm's subdirectory of per-node peer runs: one result over several GPUs, not a GPU's.
PEER_DIRECTORY = "peer"
PEER_RECORDS = (".status", ".err")  # its records, read as a directory's per-GPU records are


def cannot_read(path: Path, error: OSError) -> FleetInputError:
    """A path that could not be listed or examined, named: the one the system names, else
    `path`."""
    return FleetInputError(f"{error.filename or path}: cannot read ({error.strerror or error})")


def files_read(path: Path) -> list[Path]:
    """The files read for one input: every entry but a subdirectory that READERS knows by its
    name in a directory, or the file itself."""
    try:
        if path.is_dir():
            return sorted(p for p in path.iterdir() if kind_of(p) in READERS and not p.is_dir())
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
        return damaged(str(file), problem, stem_of(file))
    return READERS[kind_of(file)](file)


def read_peer_listed(file: Path) -> Found:
    """A file of a `peer/` directory: a record as read_listed reads it, of the node its name
    gives; a result as a node's peer run (one that is no regular file is damaged)."""
    if kind_of(file) != ".json":
        return Found(peer_records=[replace(record, host=record.host or file.stem)
                                   for record in read_listed(file).records])
    if problem := special_file(file):
        return Found(peer_records=[replace(record, host=stem_of(file), name=str(
            file.parent / stem_of(file))) for record in damaged(str(file), problem).records])
    return read_peer_result(file, stem_of(file))


def peer_directory(path: Path) -> Path | None:
    """The `peer/` subdirectory of a directory, where it holds a file READERS knows."""
    peer = path / PEER_DIRECTORY
    try:
        if path.is_dir() and peer.is_dir() and any(kind_of(p) in READERS for p in peer.iterdir()):
            return peer
    except OSError as error:
        raise cannot_read(peer, error) from None
    return None


def read_inputs(paths: Iterable[str]) -> Found:
    """Every file READERS knows in the directories given (not their subdirectories), and the
    files given by name; of a directory's `peer/` subdirectory, its nodes' peer runs and their
    records. What an earlier job or attempt left in a directory is stale (without_stale)."""
    by_directory: dict[str, Found] = {}
    found = Found()
    for name in paths:
        path = Path(name)
        for file in files_read(path):
            of_directory(by_directory, file.parent).add(
                READERS.get(kind_of(file), read_result_file)(file) if file == path
                else read_listed(file))
        if peer := peer_directory(path):
            for file in files_read(peer):
                if file.suffix in PEER_RECORDS or kind_of(file) == ".json":
                    of_directory(by_directory, path).add(read_peer_listed(file))
    for where, directory in by_directory.items():
        directory.records = with_exits_of_records(directory.records)
        directory.peer_records = with_exits_of_records(directory.peer_records)
        found.damaged += [r for r in directory.records + directory.peer_records
                          if r.status == "damaged"]
        found.add(without_stale(directory, where))
    found.records = [said_once(r) for r in merge_records(results_of_done(found))]
    found.peer_records = [said_once(r) for r in merge_records(peer_results_of_done(found))]
    return found


def peer_results_of_done(found: Found) -> list[RunRecord]:
    """The peer records less those saying `done` whose node's result was read (or gave a record
    of its own, which takes the GPUs the `done` names where it names none: a result that cannot
    be read names none): a `done` without one is a `missing` result."""
    read = {run.name for run in found.peer_runs}
    read |= {r.name for r in found.peer_records if r.status != "done"}
    done = {r.name: r for r in found.peer_records if r.status == "done"}
    records = []
    for record in found.peer_records:
        said = done.get(record.name)
        if record.status != "done":
            records.append(replace(record, uuid=record.uuid or said.uuid,
                                   gpus=record.gpus or said.gpus) if said else record)
        elif record.name not in read:
            records.append(RunRecord("missing", record.host, record.uuid,
                                     f"no result: {record.detail}", record.source,
                                     name=record.name, gpus=record.gpus))
    return records


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
    newest, or an earlier attempt of its newest job (reading/fleet/jobs.py), left there: those
    results and records become `stale` records, each naming its job, and their figures are not
    judged. Of a GPU the newest run has a result of, what earlier runs left is superseded: dropped,
    as the newest run's files replace theirs, and said once in `superseded`. Only a pod log holds
    both: its lines are never replaced (a Job applied again under its name, its earlier pods' logs
    collected with the later's). Of the allocations, the newest job's is kept: a job allocated
    and gone without a file is the newest, what earlier jobs left stale."""
    records, peer_records, result_runs, peer_runs = with_runs(found)
    latest: dict[str, str] = {job: "" for job, _ in result_runs + peer_runs + found.allocations
                              if job}
    for record in records + peer_records:
        if record.job:
            latest[record.job] = max(latest.get(record.job, ""), record.time)
    if not latest:
        return Found(found.gpus, records, peer_records=peer_records, peer_runs=found.peer_runs)
    newest = newest_job(latest)
    runs = result_runs + peer_runs + [(r.job, r.attempt) for r in records + peer_records]
    newest_run = (newest, max((attempt for job, attempt in runs if job == newest), default=0))
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
    stale_peer_runs = [RunRecord("stale", peer.host, peer.uuids[0], "its peer result",
                                 peer.source, name=peer.name, job=run[0], attempt=run[1],
                                 gpus=peer.uuids, stale_of=stale_of(run))
                       for peer, run in zip(found.peer_runs, peer_runs) if stale_of(run)]
    said = []
    if superseded:
        earlier = ", ".join(sorted(set().union(*superseded.values())))
        said.append(one_line(f"{directory}: what job {earlier} left of {len(superseded)} GPU(s) "
                             f"the newest job here, {named(newest_run)}, measured again is not "
                             "judged"))
    return Found([gpu for gpu, run in gpus if not stale_of(run)],
                 stale_results + [judged(r) for r in records],
                 peer_records=stale_peer_runs + [judged(r) for r in peer_records],
                 peer_runs=[peer for peer, run in zip(found.peer_runs, peer_runs)
                            if not stale_of(run)], superseded=said,
                 allocations=[a for a in found.allocations if a[0] == newest])


def with_runs(found: Found) -> tuple[list[RunRecord], list[RunRecord], list[JobRun],
                                     list[JobRun]]:
    """One directory's records and peer records with the job and attempt that wrote them, and
    those of each of its results and peer runs. A `.status` record says its own; an .err (or a
    pod log's exit line), those of the record of its name. A result's job is the one its context
    names, else that of its GPU's record (a peer run's: of its name); its attempt that record's
    where it is of the same job (a result names none), else 0; the records a result gives
    (interrupted, failed) take the result's."""
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
    def run_of_peer(peer: PeerRun) -> JobRun:
        record = by_name.get(peer.name)
        job = peer.job or (record.job if record else None)
        return job, record.attempt if record is not None and record.job == job else 0

    return (records, [with_job(r) for r in found.peer_records], result_runs,
            [run_of_peer(peer) for peer in found.peer_runs])


def results_of_done(found: Found) -> list[RunRecord]:
    """The records less those saying `done` whose result was read (or found damaged): a `done`
    without one is a `missing` result."""
    read = {gpu.uuid for gpu in found.gpus} | {gpu.source for gpu in found.gpus}
    others = {record.key for record in found.records if record.status != "done"}
    records = []
    for record in found.records:
        if record.status != "done":
            records.append(record)
        elif not (record.uuid in read or any(record.name + s in read for s in RESULT_SUFFIXES)
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
