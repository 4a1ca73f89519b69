"""The per-GPU status record deploy/slurm and deploy/container/gpubench-pod write (docs/cluster.md).

A `<name>.status` file is UTF-8, one `key=value` a line; a pod log carries the same record on one
line, `gpubench-pod: status=... exit=... gpu_uuid=... node=...`. Keys: status (done, failed,
interrupted, killed; or running, which gpubench --status-out writes as it starts: a record left so
is a run that never ended, read as killed), exit (a number, or `none` where gpubench never
returned or never started), gpu_uuid (empty where unknown; comma-separated for a peer run over
several GPUs), node, job, task, device, time, attempt (deploy/slurm's SLURM_RESTART_COUNT: a
requeued job's run; 0 where not given).
Unknown keys are ignored: keys may be added. A node, job, task, GPU UUID or time the deploy scripts
would not write makes the record not of the format: a job's records are ordered by their time as
text, and each names a host and job in the report.
"""

import re

RUN_STATUSES = ("done", "failed", "interrupted", "killed", "running")
_EXIT = re.compile(r"^(none|[0-9]{1,3})$")
_ATTEMPT = re.compile(r"^[0-9]{1,9}$")
_UUID = re.compile(r"^(?:GPU|MIG)-[0-9A-Za-z/-]{1,124}$")
# What the deploy scripts write as a record's node and task: 1-128 printable ASCII characters
# without a space, '/' or '=' (their check_value); a job, a Slurm job id or a Kubernetes Job's
# NAME:UID, two of them. A longer or other value is no record of theirs.
_NAMES = {key: re.compile(rf"^[!-.0-<>-~]{{1,{limit}}}$")
          for key, limit in (("node", 128), ("job", 257), ("task", 128))}
# `date -u +%Y-%m-%dT%H:%M:%SZ`: compared as text to order jobs, so nothing else may sort there.
_TIME = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$")


class StatusError(ValueError):
    """A record that is not the documented format; str() is one line."""


def parse_record(pairs: list[str]) -> dict[str, str]:
    """The record's keys from its `key=value` items, checked: status and exit must be there and
    valid; gpu_uuid, node, job, task, time and attempt valid where given. The last of a key
    given twice wins."""
    fields: dict[str, str] = {}
    for item in pairs:
        key, equals, value = item.partition("=")
        if not equals or not key:
            raise StatusError(f"not key=value: {item[:60]!r}")
        fields[key] = value
    status, exit_text = fields.get("status"), fields.get("exit")
    if status not in RUN_STATUSES:
        raise StatusError(f"status {status!r} is not one of {', '.join(RUN_STATUSES)}"
                          if status is not None else "no status key")
    if exit_text is None or not _EXIT.match(exit_text):
        raise StatusError(f"exit {exit_text!r} is not a number or 'none'"
                          if exit_text is not None else "no exit key")
    for uuid in uuids_of(fields):
        if not _UUID.match(uuid):
            raise StatusError(f"gpu_uuid {uuid[:60]!r} is not a GPU-... or MIG-... UUID")
    for key, name in _NAMES.items():
        if fields.get(key) and not name.match(fields[key]):
            raise StatusError(f"{key} {fields[key][:60]!r} is not printable ASCII without a "
                              "space, '/' or '=', of the length the scripts write")
    if fields.get("time") and not _TIME.match(fields["time"]):
        raise StatusError(f"time {fields['time'][:60]!r} is not YYYY-MM-DDTHH:MM:SSZ")
    if "attempt" in fields and not _ATTEMPT.match(fields["attempt"]):
        raise StatusError(f"attempt {fields['attempt'][:60]!r} is not a number")
    return fields


def attempt_of(fields: dict[str, str]) -> int:
    """The record's attempt of its job (parse_record checked it), 0 where it names none."""
    return int(fields.get("attempt", "0"))


def uuids_of(fields: dict[str, str]) -> list[str]:
    return [u for u in fields.get("gpu_uuid", "").split(",") if u]


def describe(fields: dict[str, str]) -> str:
    """What the record says, in words, for the report."""
    status, exit_text = fields["status"], fields["exit"]
    if exit_text != "none":
        what = f"status {status}, exit status {exit_text}"
    elif status == "interrupted":
        what = "status interrupted: never started (the job stopped first)"
    elif status == "killed":
        what = "status killed: the run never returned (its task was killed)"
    elif status == "running":
        what = "status running: the run never ended (killed, or still running)"
    else:
        what = f"status {status}, no exit status"
    when = f" at {fields['time']}" if fields.get("time") else ""
    return what + when
