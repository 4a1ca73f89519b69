"""gpubench-tools fleet's health flags, from the NVML records gpubench takes before and after its
run."""

import json
from pathlib import Path
from typing import Any

import fleet_builder as fb
import pytest

from gpubench_tools.cli.fleet import main
from gpubench_tools.models.fleet.health import GROWING_COUNTERS, WATCH, judge_health
from gpubench_tools.reading.fleet.health_records import parse_record

UUID = "GPU-00000000-f1ee-4000-8000-000000000000"


def context(after: dict[str, Any] | None = None, before: dict[str, Any] | None = None) -> dict:
    doc: dict[str, Any] = {"context": {"gpu_uuid": UUID}}
    fb.set_health(doc, after, before)
    return doc["context"]


def problems(ctx: dict) -> list[tuple[str, int]]:
    return [(f.problem, f.severity) for f in judge_health([ctx]).findings]


def test_a_healthy_gpu_has_no_finding() -> None:
    report = judge_health([context()])
    assert report.findings == []
    assert report.judged == {UUID}


@pytest.mark.parametrize("after, problem, severity", [
    ({"ecc_volatile_uncorrected": 2}, "uncorrected ECC errors: volatile uncorrected 2", 0),
    ({"ecc_aggregate_uncorrected": 1}, "uncorrected ECC errors: aggregate uncorrected 1", 0),
    ({"remap_failed": True}, "row remapping failed", 0),
    ({"remap_pending": True}, "a row remap is pending", 1),
    ({"retired_pages_pending": True}, "a page retirement is pending", 1),
    ({"xid_events": [79, 48]}, "Xid 79, 48 during the run", 0),
    ({"pcie_link_width_current": 8}, "PCIe link x8 of x16 (after the run)", 1),
    ({"pcie_link_gen_current": 4}, "PCIe link Gen4 of Gen5 (after the run)", 1),
])
def test_each_state_is_flagged(after: dict, problem: str, severity: int) -> None:
    found = problems(context(after))
    assert any(p.startswith(problem) and s == severity for p, s in found), found


def growth_severity(counter: str) -> int:
    if "uncorrected" in counter:
        return 0
    return 1 if counter in ("nvlink_replay_errors", "nvlink_recovery_errors") else WATCH


@pytest.mark.parametrize("counter", GROWING_COUNTERS)
def test_each_counter_that_grew_is_flagged(counter: str) -> None:
    found = problems(context({counter: 7}, {counter: 5}))
    assert [s for p, s in found if p.startswith(f"{counter} grew during the run: 5 -> 7")] == \
        [growth_severity(counter)], found


@pytest.mark.parametrize("counter, grown, seconds, severity, rate", [
    ("nvlink_crc_errors", 76, 2.0, WATCH, "38/s"),  # two healthy H200s over a peer run
    ("nvlink_crc_errors", 99, 1.0, WATCH, "99/s"),
    ("nvlink_crc_errors", 100, 1.0, 1, "100/s"),  # DCGM's limit: 100 CRC errors a second
    ("nvlink_crc_errors", 50, 0.25, WATCH, "50/s"),  # counted over a second at least
    ("nvlink_crc_errors", 5000, 100.0, WATCH, "50/s"),
    ("pcie_replay_count", 7, 10.0, WATCH, "7/min"),  # counted over a minute at least
    ("pcie_replay_count", 8, 10.0, 1, "8/min"),  # DCGM's limit: 8 replays a minute
    ("pcie_replay_count", 1197, 60.0, 1, "1.2e+03/min"),
    ("pcie_replay_count", 16, 240.0, WATCH, "4/min"),
])
def test_corrected_link_errors_are_judged_by_their_rate(counter: str, grown: int, seconds: float,
                                                        severity: int, rate: str) -> None:
    start_ms = 1_796_054_400_000
    found = problems(context(
        {counter: 2274 + grown, "read_at_unix_ms": start_ms + int(seconds * 1000)},
        {counter: 2274, "read_at_unix_ms": start_ms}))
    assert len(found) == 1 and found[0][1] == severity, found
    assert f", {rate} (limit " in found[0][0], found


def test_a_watch_is_listed_but_needs_no_attention(tmp_path, capsys) -> None:
    """A GPU whose only finding is a watch is listed; the fleet does not fail on it."""
    fleet = fb.build_fleet(4)
    for doc in fleet:
        fb.set_health(doc)
    fb.set_health(fleet[2], after={"nvlink_crc_errors": 2350}, before={"nvlink_crc_errors": 2274})
    fb.write_fleet(fleet, tmp_path)
    assert main([str(tmp_path), "--fail-on-outlier"]) == 0
    out = capsys.readouterr().out
    assert "watch, not counted" in out and fb.uuid_of(2) in out
    assert out.rstrip().endswith("0 GPU(s) need attention.")


def test_a_counter_that_did_not_grow_is_not_flagged() -> None:
    assert problems(context({"pcie_replay_count": 40}, {"pcie_replay_count": 40})) == []


def test_a_link_generation_lowered_at_idle_is_not_flagged() -> None:
    """Before the run an idle GPU may sit at a lower PCIe generation; its width stays."""
    assert problems(context(before={"pcie_link_gen_current": 1})) == []
    assert problems(context(before={"pcie_link_width_current": 4})) == \
        [("PCIe link x4 of x16 (before the run)", 1)]


def test_not_reported_is_never_a_zero() -> None:
    """Uncorrected ECC not reported after the run: no flag, and the report says so; a counter
    not reported before cannot have grown."""
    ctx = context({"ecc_volatile_uncorrected": "not reported", "pcie_replay_count": 90},
                  {"pcie_replay_count": "not reported"})
    report = judge_health([ctx])
    assert report.findings == []
    assert report.not_judged["ecc_volatile_uncorrected not reported"] == {UUID}
    assert report.not_judged["pcie_replay_count not reported"] == {UUID}


def test_ecc_disabled_is_named() -> None:
    report = judge_health([context({"ecc_mode": "disabled"})])
    assert report.not_judged["ECC disabled (memory errors are not counted)"] == {UUID}


def test_files_without_health_records_have_nothing_to_judge() -> None:
    report = judge_health([{"gpu_uuid": UUID}])
    assert (report.findings, report.judged) == ([], set())


@pytest.mark.parametrize("record, why", [
    ("{not json", "is not JSON"),
    ("[1, 2]", "is JSON but not an object"),
    (5, "is int, not a JSON object as text"),
])
def test_an_unreadable_record_is_named(record: Any, why: str) -> None:
    found = problems({"gpu_uuid": UUID, "gpu_health_after": record})
    assert len(found) == 1 and found[0][1] == 2, found
    assert found[0][0].startswith(f"health record gpu_health_after {why}"), found


def test_fields_of_another_type_are_not_judged() -> None:
    """Text where a number belongs is neither a zero nor a flag."""
    assert problems(context({"ecc_volatile_uncorrected": "5", "remap_failed": "yes",
                              "xid_events": "79"})) == []


def test_each_device_of_a_several_device_run() -> None:
    other = "GPU-11111111-f1ee-4000-8000-000000000000"
    ctx = context()
    ctx.update(device_0=f"NVIDIA H200, {UUID}, 0000:05:00.0",
               device_1=f"NVIDIA H200, {other}, 0000:06:00.0",
               device_0_health_before=ctx["gpu_health_before"],
               device_0_health_after=ctx["gpu_health_after"],
               device_1_health_before=json.dumps(fb.HEALTHY),
               device_1_health_after=json.dumps(dict(fb.HEALTHY, xid_events=[94])))
    report = judge_health([ctx])
    assert report.judged == {UUID, other}
    assert [(f.uuid, f.problem) for f in report.findings] == [(other, "Xid 94 during the run")]


def test_clock_events_during_the_run_are_kept_for_the_report() -> None:
    report = judge_health([context({"clock_event_reasons_during_run": ["sw_thermal_slowdown"]})])
    assert report.findings == []
    assert report.clock_events == {UUID: ["sw_thermal_slowdown"]}


def test_worst_first() -> None:
    found = problems(context({"pcie_replay_count": 9, "remap_pending": True, "xid_events": [79]}))
    assert [s for _, s in found] == [0, 1, 2]


HUGE = int("9" * 400)


@pytest.mark.parametrize("plant, field, why", [
    (lambda doc: fb.set_health(doc, after={"pcie_replay_count": HUGE}),
     "gpu_health_after pcie_replay_count", "an integer of 400 digits"),
    (lambda doc: fb.set_health(doc, after={"ecc_volatile_uncorrected": HUGE}),
     "gpu_health_after ecc_volatile_uncorrected", "an integer of 400 digits"),
    (lambda doc: fb.set_health(doc, after={"pcie_link_width_current": HUGE}),
     "gpu_health_after pcie_link_width_current", "an integer of 400 digits"),
    (lambda doc: fb.set_health(doc, after={"read_at_unix_ms": HUGE}),
     "gpu_health_after read_at_unix_ms", "an integer of 400 digits"),
    (lambda doc: fb.set_health(doc, before={"pcie_replay_count": float("inf")}),
     "gpu_health_before pcie_replay_count", "inf, not a finite number"),
    (lambda doc: doc["context"].update(mhz_per_cpu=HUGE), "mhz_per_cpu",
     "an integer of 400 digits"),
], ids=["counter", "uncorrected", "link", "read at", "infinite", "cpu clock"])
@pytest.mark.parametrize("as_pod_log", [False, True], ids=["file", "pod log"])
def test_a_number_beyond_a_float_is_a_damaged_row(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str], plant,
                                                  field: str, why: str,
                                                  as_pod_log: bool) -> None:
    """A context number gpubench-tools fleet computes with that no float holds (an integer past
    1.8e308, json's Infinity) makes its result a damaged row of its GPU, named on stderr in one
    line."""
    fleet = fb.build_fleet(4)
    for doc in fleet:
        fb.set_health(doc)
    plant(fleet[1])
    if as_pod_log:
        source = tmp_path / "pods.jsonl"
        source.write_text("".join(json.dumps(doc) + "\n" for doc in fleet))
        source_line = f"{source}:2"
    else:
        source_line = str(fb.write_fleet(fleet, tmp_path)[1])
    assert main([str(tmp_path), "--no-limits", "--fail-on-outlier"]) == 1
    out, err = capsys.readouterr()
    assert err == f"gpubench-tools fleet: skipped {source_line}: context {field}: {why}" + (
        ", more than a float holds\n" if "digits" in why else "\n"), err
    damaged = [line.split()[:3] for line in out.splitlines() if line.startswith("damaged")]
    assert damaged == [["damaged", "node01", fb.uuid_of(1)]], out


def test_a_record_giving_a_counter_two_values_is_no_record() -> None:
    """JSON leaves open which of the two counts, so neither is judged."""
    problem = parse_record('{"pcie_replay_count": 3, "pcie_replay_count": 1200}')
    assert problem == ("is not JSON (the key 'pcie_replay_count' appears twice in one object, "
                       "with different values)")
