"""A host-timed figure over host work timed in the same rounds (gpubench's host_referenced, as
launch/paired/submit's syscalls_per_launch): the host's drift between processes cancels from
it, so compare judges it by the GPU's floor, not the host's; its real time still moves with the
host, and one file's word cannot loosen a floor."""

from pathlib import Path

import pytest
from conftest import RunScript
from family_facts import with_facts
from gbench_builder import document, recorded, run_entries, write_json
from test_compare import row

from gpubench_tools.reading.facts import REAL_TIME_US
from gpubench_tools.reading.fleet.compact import compact_benchmark
from gpubench_tools.reading.result_file import load

PAIRED = "launch/paired/submit/params:0"
REFERENCED = {"host_timed": 1, "host_referenced": 1, "noise_pct": 1.0}


def paired(syscalls: float, counters: dict, figure: bool = True) -> list[dict]:
    """Five repetitions of launch/paired at 0 bytes: a round of 900 µs, a launch worth
    `syscalls` getppid calls (left out where not `figure`, as files before it)."""
    samples = []
    for i in range(5):
        wobble = 1 + 0.001 * (i - 2)
        sample = {"real_time": 900.0 * syscalls / 28.0 * wobble}
        if figure:
            sample["syscalls_per_launch"] = syscalls * wobble
        samples.append(sample)
    return run_entries(f"{PAIRED}/manual_time", samples, counters=counters)


def compare(tmp_path: Path, run_script: RunScript, base: list[dict], new: list[dict]):
    b = write_json(tmp_path / "base.json", recorded(with_facts(document(base))))
    n = write_json(tmp_path / "new.json", with_facts(document(new)))
    return run_script("compare", b, n, "--markdown")


@pytest.mark.parametrize(("counters", "verdict", "resolution", "clock"), [
    (REFERENCED, "SLOWER", "1.03×", "host/ref"),
    ({"host_timed": 1, "noise_pct": 1.0}, "SAME", "1.25×", "host"),  # the host's floor
])
def test_a_figure_over_a_host_reference_has_the_gpu_floor(
        tmp_path: Path, run_script: RunScript, counters: dict, verdict: str, resolution: str,
        clock: str) -> None:
    proc = compare(tmp_path, run_script, paired(28.0, counters), paired(28.0 * 1.10, counters))
    judged = row(proc.stdout, PAIRED)
    assert judged["unit"] == "getppid calls"
    assert (judged["verdict"], judged["resolution"], judged["clock"]) == \
        (verdict, resolution, clock)
    assert proc.returncode == (verdict == "SLOWER"), proc.stderr


def test_real_time_of_a_referenced_benchmark_moves_with_the_host(
        tmp_path: Path, run_script: RunScript) -> None:
    """A baseline written before the figure: both files are judged by real time, host-timed in
    both, at the host's floor."""
    old = paired(28.0, {"host_timed": 1, "noise_pct": 1.0}, figure=False)
    proc = compare(tmp_path, run_script, old, paired(28.0 * 1.10, REFERENCED))
    judged = row(proc.stdout, PAIRED)
    assert (judged["unit"], judged["resolution"], judged["clock"], judged["verdict"]) == \
        ("µs", "1.25×", "host", "SAME")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("referenced_side", ["base", "new"])
def test_one_files_word_is_no_reference(tmp_path: Path, run_script: RunScript,
                                        referenced_side: str) -> None:
    plain = {"host_timed": 1, "noise_pct": 1.0}
    base, new = (REFERENCED, plain) if referenced_side == "base" else (plain, REFERENCED)
    proc = compare(tmp_path, run_script, paired(28.0, base), paired(28.0, new))
    judged = row(proc.stdout, PAIRED)
    assert judged["verdict"] == "UNRESOLVED" and proc.returncode == 1
    assert "host-timed over a host reference" in proc.stdout


@pytest.mark.parametrize("value", [2, 0.5, -1])
def test_host_referenced_is_0_or_1(tmp_path: Path, run_script: RunScript, value: float) -> None:
    new = write_json(tmp_path / "new.json",
                     with_facts(document(paired(28.0, {**REFERENCED, "host_referenced": value}))))
    base = write_json(tmp_path / "base.json",
                      recorded(with_facts(document(paired(28.0, REFERENCED)))))
    proc = run_script("compare", base, new)
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1
    assert "'host_referenced'" in proc.stderr and "not 0 or 1" in proc.stderr


@pytest.mark.parametrize("repetitions", [1, 5])
def test_a_fleets_compact_benchmark_keeps_its_reference(tmp_path: Path, repetitions: int) -> None:
    """The fleet keeps of each benchmark only what its rule reads: host_referenced among it, so
    the fleet judges the figure as compare does."""
    entries = paired(28.0, REFERENCED)
    if repetitions == 1:
        entries = [dict(entries[0], repetitions=1)]
    path = write_json(tmp_path / "run.json", with_facts(document(entries)))
    bench = load(path).benchmarks[PAIRED]
    kept = compact_benchmark(bench, {})
    assert (bench.host_paced, kept.host_paced) == (False, False)
    assert kept.paced_by_host(REAL_TIME_US) is True


PAGEABLE_PAIRED = "copy/HtoD/pageable/sync_paired/1048576"


def pageable_paired(refs: float, counters: dict) -> list[dict]:
    """Five repetitions of a pageable copy timed beside the host references: a copy worth `refs`
    of them (copy/.../sync_paired's refs_per_copy)."""
    samples = []
    for i in range(5):
        wobble = 1 + 0.001 * (i - 2)
        samples.append({"real_time": 400.0 * wobble, "refs_per_copy": refs * wobble,
                        "copy_us": 80.0 * wobble})
    return run_entries(PAGEABLE_PAIRED, samples, counters=counters)


def test_a_pageable_copy_over_the_host_references_has_the_gpu_floor(
        tmp_path: Path, run_script: RunScript) -> None:
    """A pageable copy is paced by the host, but its cost over host work timed in the same
    rounds is not: 10% slower is SLOWER, judged by the GPU's floor."""
    proc = compare(tmp_path, run_script, pageable_paired(2.0, REFERENCED),
                   pageable_paired(2.0 * 1.10, REFERENCED))
    judged = row(proc.stdout, PAGEABLE_PAIRED)
    assert judged["unit"] == "host references"
    assert (judged["verdict"], judged["resolution"], judged["clock"]) == \
        ("SLOWER", "1.03×", "host/ref")
    assert proc.returncode == 1, proc.stderr
