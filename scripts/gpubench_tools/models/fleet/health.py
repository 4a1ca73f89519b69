"""GPU health from the records gpubench takes from NVML before and after its run.

The context holds, per GPU, `gpu_health_before` and `gpu_health_after` (with several devices also
`device_<N>_health_before` / `_after`): each a one-line JSON object whose fields are numbers or
booleans, or the string "not reported" where NVML did not say (a VM hides some). A field not
reported is never read as a zero: it is not judged, and the report says so. Files without these
keys (older gpubench) have nothing to judge.

Flagged, worst first: uncorrected ECC errors, a failed row remap, an Xid event during the run
(act now); a pending row remap or page retirement, a link below its maximum, an NVLink replay or
recovery during the run, NVLink CRC errors at 100 or more a second, PCIe replays at 8 or more a
minute (at the next maintenance); any other error counter that grew between before and after,
or one of those at a lower rate (watch). The rates are DCGM's health watch's: a CRC error or a
PCIe replay is corrected by a retransmission and matters only at such a rate (two healthy H200s
joined by NVLink count tens of CRC errors during a peer run). A watch is listed, not counted as
needing attention.
"""

import re
from dataclasses import dataclass
from typing import Any

from gpubench_tools.reading.fleet.health_records import HEALTH_KEY, parse_record

NOT_REPORTED = "not reported"
# Counters that only grow while the GPU is up: growth during the run is an event of the run.
GROWING_COUNTERS = (
    "ecc_volatile_uncorrected", "ecc_aggregate_uncorrected",
    "ecc_volatile_corrected", "ecc_aggregate_corrected",
    "retired_pages_sbe", "retired_pages_dbe",
    "remapped_rows_correctable", "remapped_rows_uncorrectable",
    "pcie_replay_count",
    "nvlink_crc_errors", "nvlink_replay_errors", "nvlink_recovery_errors",
)
_UNCORRECTED = ("ecc_volatile_uncorrected", "ecc_aggregate_uncorrected")
_AT_MAINTENANCE_ON_ANY_GROWTH = ("nvlink_replay_errors", "nvlink_recovery_errors")
# Counters judged by their rate, as DCGM's health watch judges them (its hardware limits): the
# limit, the seconds it is counted over, and that unit's name.
RATE_LIMITS = {
    "nvlink_crc_errors": (100.0, 1.0, "s"),
    "pcie_replay_count": (8.0, 60.0, "min"),
}
WATCH = 2  # the severity listed but not counted as needing attention
_STATES = {  # boolean fields: what true means, and how bad it is (0 worst)
    "remap_failed": ("row remapping failed", 0),
    "remap_pending": ("a row remap is pending (it takes effect at the next GPU reset)", 1),
    "retired_pages_pending": ("a page retirement is pending (it takes effect at the next GPU "
                              "reset)", 1),
}
# A GPU at idle may lower its PCIe generation to save power and raise it under load, so the
# generation is judged at the end of the run; a narrower link stays narrow.
_LINKS = (("pcie_link_width_current", "pcie_link_width_max", "x", ("before", "after")),
          ("pcie_link_gen_current", "pcie_link_gen_max", "Gen", ("after",)))


@dataclass(frozen=True)
class HealthFinding:
    uuid: str
    problem: str
    severity: int  # 0: act now; 1: act at the next maintenance; 2: watch


@dataclass(frozen=True)
class DeviceHealth:
    uuid: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None


@dataclass
class HealthReport:
    findings: list[HealthFinding]
    not_judged: dict[str, set[str]]  # what was not judged ("ecc_... not reported"): UUIDs
    judged: set[str]  # UUIDs with a health record
    clock_events: dict[str, list[str]]  # UUID: clock event reasons seen during the run


def device_uuids(context: dict[str, Any]) -> dict[str, str]:
    """Device ordinal (as text) to UUID, from device_N = "name, uuid, bus"; "" for gpu_uuid."""
    uuids = {"": str(context.get("gpu_uuid", "unknown GPU"))}
    for key, value in context.items():
        match = re.fullmatch(r"device_(\d+)", key)
        if match and isinstance(value, str) and len(parts := value.rsplit(", ", 2)) == 3:
            uuids[match[1]] = parts[1]
    return uuids


def device_health(context: dict[str, Any]) -> tuple[list[DeviceHealth], list[HealthFinding]]:
    """The before/after records of each device in a result's context, and unreadable ones."""
    uuids = device_uuids(context)
    records: dict[str, dict[str, dict[str, Any] | None]] = {}
    unreadable = []
    for key, value in context.items():
        match = HEALTH_KEY.match(key)
        if not match:
            continue
        ordinal, when = match[1] or "", match[2]
        uuid = uuids.get(ordinal, f"{uuids['']} device {ordinal}")
        record = parse_record(value)
        if isinstance(record, str):
            unreadable.append(HealthFinding(uuid, f"health record {key} {record}", 2))
            record = None
        # gpu_health_* and device_<first>_health_* describe the same GPU: either serves.
        slot = records.setdefault(uuid, {"before": None, "after": None})
        slot[when] = slot[when] or record
    return [DeviceHealth(u, r["before"], r["after"]) for u, r in records.items()], unreadable


def number(record: dict[str, Any] | None, name: str) -> int | float | str | None:
    """A counter's value; NOT_REPORTED where NVML did not say; None where absent or of
    another type (an unreadable field is not judged)."""
    if record is None or name not in record:
        return None
    value = record[name]
    if value == NOT_REPORTED:
        return NOT_REPORTED
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def flag(record: dict[str, Any] | None, name: str) -> bool | str | None:
    if record is None or name not in record:
        return None
    value = record[name]
    return value if isinstance(value, bool) or value == NOT_REPORTED else None


def text_list(record: dict[str, Any] | None, name: str) -> list[str] | str | None:
    if record is None or name not in record:
        return None
    value = record[name]
    if value == NOT_REPORTED:
        return NOT_REPORTED
    if isinstance(value, list) and all(isinstance(v, (str, int)) and not isinstance(v, bool)
                                       for v in value):
        return [str(v) for v in value]
    return None


def judge_device(device: DeviceHealth, not_judged: dict[str, set[str]]) -> list[HealthFinding]:
    findings = []
    uuid, before, after = device.uuid, device.before, device.after
    latest = after if after is not None else before

    def missing(name: str, *records: dict[str, Any] | None) -> None:
        if any(r is not None and r.get(name) == NOT_REPORTED for r in records):
            not_judged.setdefault(f"{name} {NOT_REPORTED}", set()).add(uuid)

    if latest is not None and latest.get("ecc_mode") == "disabled":
        not_judged.setdefault("ECC disabled (memory errors are not counted)", set()).add(uuid)

    uncorrected = []
    for name in _UNCORRECTED:
        value = number(latest, name)
        missing(name, latest)
        if isinstance(value, (int, float)) and value > 0:
            uncorrected.append(f"{name.removeprefix('ecc_').replace('_', ' ')} {value:g}")
    if uncorrected:
        findings.append(HealthFinding(uuid, "uncorrected ECC errors: " + ", ".join(uncorrected), 0))
    for name, (meaning, severity) in _STATES.items():
        missing(name, latest)
        if flag(latest, name) is True:
            findings.append(HealthFinding(uuid, meaning, severity))
    xids = text_list(after, "xid_events")
    missing("xid_events", after)
    if isinstance(xids, list) and xids:
        findings.append(HealthFinding(uuid, f"Xid {', '.join(xids)} during the run", 0))
    for current_name, max_name, prefix, moments in _LINKS:
        for when in moments:
            record = after if when == "after" else before
            current, most = number(record, current_name), number(record, max_name)
            missing(current_name, record)
            missing(max_name, record)
            if isinstance(current, (int, float)) and isinstance(most, (int, float)) \
                    and current < most:
                findings.append(HealthFinding(
                    uuid, f"PCIe link {prefix}{current:g} of {prefix}{most:g} ({when} the run)", 1))
                break
    for name in GROWING_COUNTERS:
        start, end = number(before, name), number(after, name)
        missing(name, before, after)
        if isinstance(start, (int, float)) and isinstance(end, (int, float)) and end > start:
            findings.append(growth_finding(uuid, name, start, end, seconds_between(before, after)))
    return findings


def seconds_between(before: dict[str, Any] | None, after: dict[str, Any] | None) -> float | None:
    """The seconds between the two records' readings, where both say when they were taken."""
    start, end = number(before, "read_at_unix_ms"), number(after, "read_at_unix_ms")
    if isinstance(start, (int, float)) and isinstance(end, (int, float)) and end > start:
        return (end - start) / 1000
    return None


def growth_finding(uuid: str, name: str, start: float, end: float,
                   seconds: float | None) -> HealthFinding:
    problem = f"{name} grew during the run: {start:g} -> {end:g}"
    if name in _UNCORRECTED:
        return HealthFinding(uuid, problem, 0)
    if name in _AT_MAINTENANCE_ON_ANY_GROWTH:
        return HealthFinding(uuid, problem, 1)
    if name not in RATE_LIMITS:
        return HealthFinding(uuid, problem, WATCH)
    limit, per_seconds, unit = RATE_LIMITS[name]
    if seconds is None:
        return HealthFinding(uuid, problem + " (rate unknown: the records are not timed)", WATCH)
    # DCGM judges the growth over a window of at least `per_seconds`: a short run is not
    # judged by a rate extrapolated from a few events.
    rate = (end - start) / max(seconds, per_seconds) * per_seconds
    severity = 1 if rate >= limit else WATCH
    return HealthFinding(uuid, f"{problem} in {seconds:.1f} s, {rate:.3g}/{unit} (limit "
                               f"{limit:g}/{unit})", severity)


def judge_health(contexts: list[dict[str, Any]]) -> HealthReport:
    report = HealthReport([], {}, set(), {})
    for context in contexts:
        devices, unreadable = device_health(context)
        report.findings += unreadable
        for device in devices:
            report.judged.add(device.uuid)
            report.findings += judge_device(device, report.not_judged)
            during = text_list(device.after, "clock_event_reasons_during_run")
            if isinstance(during, list) and during:
                report.clock_events[device.uuid] = during
    report.findings.sort(key=lambda f: f.severity)
    return report
