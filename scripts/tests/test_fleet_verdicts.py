"""gpubench-tools fleet from the command line on fleets no file can talk into passing a slow GPU:
one GPU's word on a figure's facts, spellings that would set a GPU apart, a GPU alone, a GPU
lacking benchmarks (test_fleet_properties.py generates the cases; these are the report and exit
status of one of each)."""

import json
from pathlib import Path

import fleet_builder as fb
import pytest
from family_facts import with_facts
from test_fleet import rows_with, run, section

HTOD = "copy/HtoD/pinned/async/"


def test_one_gpu_saying_host_timed_moves_no_rule(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """node07's file says its HtoD pinned copies are host-timed, node03's are 12% slower: the
    group judges them device-timed as 15 GPUs say, node03 is flagged and node07 named."""
    fleet = fb.build_fleet(16, 0)
    fb.scale_bandwidth(fleet[3], fb.starts(HTOD), 0.88)
    for entry in fleet[7]["benchmarks"]:
        if entry["run_name"].startswith(HTOD):
            entry["host_timed"] = 1
    fb.write_fleet(fleet, tmp_path)
    code, out, _ = run(capsys, tmp_path, "--no-limits", "--fail-on-outlier")
    assert code == 1, out
    assert {row.split()[0] for row in rows_with(section(out, "Slower"), "copy/")} == {"node03"}
    facts = rows_with(section(out, "Facts of a figure"), "node07")
    assert len(facts) == 1 and " 3 " in facts[0] and HTOD in facts[0]
    assert "host-paced" in facts[0] and "device-timed (15 of 16 GPUs)" in facts[0]
    assert out.rstrip().endswith("2 GPU(s) need attention.")


def test_the_first_gpu_giving_other_facts_decides_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """node00, first in sort order, declares µs per copy the copies' figure (the others GB/s);
    node03's HtoD pinned copies are 25% slower: flagged, and node00 named on its 75 copies."""
    fleet = [with_facts(doc) for doc in fb.build_fleet(16, 0)]
    family = next(f for f in fleet[0]["context"]["gpubench_families"]["families"]
                  if f["name"] == "copy")
    family["figures"][:2] = family["figures"][1::-1]
    fb.scale_bandwidth(fleet[3], fb.starts(HTOD), 0.75)
    fb.write_fleet(fleet, tmp_path)
    code, out, err = run(capsys, tmp_path, "--no-limits", "--fail-on-outlier")
    assert (code, err) == (1, ""), out
    assert {row.split()[0] for row in rows_with(section(out, "Slower"), "copy/")} == {"node03"}
    facts = rows_with(section(out, "Facts of a figure"), "node00")
    assert len(facts) == 1 and " 75 " in facts[0] and "us_per_copy in µs" in facts[0]


def test_spellings_set_no_gpu_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """node03, 25% slower, with a trailing space in its driver, `NVIDIA h200`, a -dirty build,
    a host at 2101 MHz and benchmark_min_time "0.0s" against the others' "0s": one group of 16,
    node03 flagged."""
    fleet = fb.build_fleet(16, 0)
    for doc in fleet:
        doc["context"]["benchmark_min_time"] = "0s"
    context = fleet[3]["context"]
    context.update(driver_version=context["driver_version"] + " ", gpu_name="NVIDIA h200",
                   gpubench_version=context["gpubench_version"] + "-dirty", mhz_per_cpu=2101,
                   benchmark_min_time="0.0s")
    fb.scale_bandwidth(fleet[3], fb.starts(HTOD), 0.75)
    fb.write_fleet(fleet, tmp_path)
    code, out, _ = run(capsys, tmp_path, "--no-limits", "--fail-on-outlier")
    assert code == 1, out
    assert "16 GPU result(s), 1 group(s)" in out
    assert {row.split()[0] for row in rows_with(section(out, "Slower"), "copy/")} == {"node03"}
    assert "2100-2101 MHz" in section(out, "Groups")


def test_a_gpu_alone_needs_attention(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """node03 on another driver is a group of one, judged by floors alone: named with what sets
    it apart, exit 1; a fleet of fewer GPUs than --min-gpus names none."""
    fleet = fb.build_fleet(16, 0)
    fleet[3]["context"]["driver_version"] = "575.57.08"
    fb.write_fleet(fleet, tmp_path / "sixteen")
    code, out, _ = run(capsys, tmp_path / "sixteen", "--no-limits", "--fail-on-outlier")
    assert code == 1, out
    alone = section(out, "In a group too small to compare")
    assert alone.startswith("In a group too small to compare (--min-gpus=4), judged by floors "
                            "alone: 1 GPU(s)")
    assert "driver 575.57.08 (group 1: 580.159.04)" in rows_with(alone, "node03")[0]
    assert out.rstrip().endswith("1 GPU(s) need attention.")
    fb.write_fleet(fleet[:3], tmp_path / "three")
    code, out, _ = run(capsys, tmp_path / "three", "--no-limits", "--fail-on-outlier")
    assert code == 0, out
    assert "judged by floors alone: 0 GPU(s)" in out


def test_a_gpu_lacking_benchmarks_is_named_and_missing_fails_fails(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """node03, its copies 25% slower, holds its launch benchmarks alone: named with the 75 copies
    it lacks; --missing-fails exits 5 naming it in one line after the report."""
    fleet = fb.build_fleet(16, 0)
    fb.scale_bandwidth(fleet[3], fb.starts("copy/"), 0.75)
    fleet[3]["benchmarks"] = [e for e in fleet[3]["benchmarks"]
                              if e["run_name"].startswith("launch/")]
    fb.write_fleet(fleet, tmp_path)
    code, out, err = run(capsys, tmp_path, "--no-limits", "--fail-on-outlier")
    assert (code, err) == (0, ""), out
    rows = rows_with(section(out, "Lacking benchmarks"), "node03")
    assert len(rows) == 1 and " 75 " in rows[0] and "(run by 15 of 16 GPUs)" in rows[0]
    code, again, err = run(capsys, tmp_path, "--no-limits", "--missing-fails")
    assert code == 5 and again == out
    assert err.startswith("gpubench-tools fleet: --missing-fails: 1 GPU(s) lack benchmarks "
                          f"others of their group ran: node03 {fb.uuid_of(3)} (75, e.g. copy/")
    assert len(err.splitlines()) == 1
    fleet[3]["benchmarks"] = json.loads(json.dumps(fb.build_fleet(16, 0)[3]["benchmarks"]))
    fb.write_fleet(fleet, tmp_path)
    assert run(capsys, tmp_path, "--no-limits", "--missing-fails")[0] == 0
