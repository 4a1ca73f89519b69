"""gpubench-tools gate: the candidate recorded, compared with the baseline, and each change judged
again on more runs of the whole suite alone before the gate says so."""

import gzip
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from forked_command import run_tool
from conftest import command
from fake_gpubench import calls, install, running
from gbench_builder import copy_run, document, write_json

from gpubench_tools.reading.recorded_flags import FLAGS, NOT_FLAGS
from gpubench_tools.reading.result_file import load
from gpubench_tools.reading.settings import FILTER_KEY, MEASUREMENT_SETTINGS

HTOD = "copy/HtoD/pinned/async/1048576"
DTOH = "copy/DtoH/pinned/async/1048576"
NOISE = {"noise_pct": 0.2, "host_timed": 0}


def recording(htod: list[float], dtoh: list[float], **context: object) -> dict:
    """GB/s of each run of the two copies, a repetition each."""
    return document(copy_run("HtoD", "pinned", "async", 1 << 20, htod, counters=NOISE)
                    + copy_run("DtoH", "pinned", "async", 1 << 20, dtoh, counters=NOISE),
                    **context)


def runs(htod: list[float], dtoh: float = 40.0, **context: str) -> list[dict]:
    """One document per run, as gpubench writes a run."""
    return [recording([h], [dtoh + 0.01 * i], **context) for i, h in enumerate(htod)]


# Fifteen baseline runs of HtoD between 49.3 and 50.7 GB/s: a range of 1.4%, below the 3% floor.
BASELINE = recording(list(np.linspace(49.3, 50.7, 15)), list(np.linspace(39.8, 40.2, 15)),
                     merged_runs=15)
# Five runs 4-6% slower: past the floor and beyond every baseline run.
SLOW = [47.2, 47.4, 47.5, 47.6, 47.8]


def gate(tmp_path: Path, first: list[dict], confirm: list[dict] | None = None,
         *flags: str, faults: dict[int, dict] | None = None, baseline_doc: dict = BASELINE,
         packed: bool = False, out: str = "gpubench.json",
         **env: str) -> subprocess.CompletedProcess[str]:
    """gpubench-tools gate of a fake gpubench writing `out`; with `packed`, the baseline
    gzip-compressed."""
    program = install(tmp_path / "build", first, confirm, faults)
    baseline = write_json(tmp_path / "baseline.json", baseline_doc)
    if packed:
        baseline = baseline.rename(tmp_path / "baseline.json.gz")
        baseline.write_bytes(gzip.compress(baseline.read_bytes()))
    return run_tool(
        ["gate", str(program), str(baseline), str(tmp_path / out), *flags],
        timeout=300,
        cwd=tmp_path,
        env={**os.environ, "GPUBENCH_RUNS": "5", **env},
    )


def confirm_calls(tmp_path: Path) -> list[list[str]]:
    """The runs after the first five; each runs the whole suite, as the first did."""
    later = calls(tmp_path / "build")[5:]
    assert not any(a.startswith("--benchmark_filter") for c in later for a in c)
    return later


def test_nothing_slower_records_once(tmp_path: Path) -> None:
    stale = tmp_path / "gpubench.confirm.json"
    stale.write_text("{}")
    proc = gate(tmp_path, runs([49.8, 50.0, 50.1, 50.3, 49.9]))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("OK: 0 of 2 benchmark(s) regressed")
    assert len(calls(tmp_path / "build")) == 5 and not confirm_calls(tmp_path)
    assert "fake gpubench" not in proc.stdout  # the recordings' output is on stderr
    assert not stale.exists()  # a confirming file left from before would read as this run's


def test_a_slowdown_the_confirming_runs_do_not_show_passes(tmp_path: Path) -> None:
    proc = gate(tmp_path, runs(SLOW), runs([49.5, 49.8, 50.0, 50.2, 50.5]))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("OK: 0 of 2 benchmark(s) regressed")
    assert "SAME (SLOWER not confirmed)" in proc.stdout
    assert proc.stdout.splitlines()[-1] == (
        "Confirmed by 5 more runs of the suite, each change judged again on them alone: "
        "`^copy/HtoD/pinned/async/1048576(/|$)`"
    )
    # The whole suite is recorded five times more, beside the candidate's own five runs.
    assert len(confirm_calls(tmp_path)) == 5
    assert load(tmp_path / "gpubench.json").benchmarks[
        HTOD
    ].repetition_values().tolist() == pytest.approx(SLOW)
    again = load(tmp_path / "gpubench.confirm.json")
    assert again.benchmarks[HTOD].repetition_values().size == 5
    assert again.benchmarks[DTOH].repetition_values().size == 5


def test_first_runs_far_out_do_not_count_twice(tmp_path: Path) -> None:
    """Five runs 20% slower and five confirming runs like the baseline's: pooled, the ten would
    sit 10% below it and fail; the runs that showed the change are not judged again."""
    proc = gate(
        tmp_path, runs([40.0, 40.1, 40.2, 40.3, 40.4]), runs([49.4, 49.7, 50.0, 50.3, 50.6])
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SAME (SLOWER not confirmed)" in proc.stdout


def test_a_speedup_the_confirming_runs_do_not_show_is_same(tmp_path: Path) -> None:
    """A FASTER is confirmed too: good news that is not there misleads as much as bad."""
    fast = [52.2, 52.4, 52.5, 52.6, 52.8]
    proc = gate(tmp_path, runs(fast), runs([49.5, 49.8, 50.0, 50.2, 50.5]))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("OK: 0 of 2 benchmark(s) regressed (0 FASTER, 0 SLOWER, 2 SAME)")
    assert "SAME (FASTER not confirmed)" in proc.stdout
    assert len(confirm_calls(tmp_path)) == 5


def test_a_slowdown_in_every_run_fails(tmp_path: Path) -> None:
    proc = gate(tmp_path, runs(SLOW), runs([47.3, 47.5, 47.6, 47.7, 47.9]), "--markdown")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "## gpubench comparison"
    assert lines[2].startswith("FAIL: 1 of 2 benchmark(s) regressed")
    # The answer first: the slower benchmark in the table under the verdict.
    assert lines[4].startswith("SLOWER (1)") and HTOD in "\n".join(lines[5:10])
    assert "SLOWER (confirmed)" in proc.stdout
    assert lines[-1].startswith("Confirmed by 5 more runs")


@pytest.mark.parametrize(("confirm_runs", "slow"), [("3", True), ("3", False), ("7", True)])
def test_the_confirming_runs_are_gpubench_confirm_runs(
    tmp_path: Path, confirm_runs: str, slow: bool
) -> None:
    """GPUBENCH_CONFIRM_RUNS sets how many runs confirm a change, apart from the first five: the
    change is judged again on those alone, and stands or falls by them."""
    again = [47.3, 47.5, 47.6, 47.7, 47.9, 47.4, 47.8] if slow else [
        49.4, 49.8, 50.1, 50.4, 50.6, 49.9, 50.2]
    count = int(confirm_runs)
    proc = gate(tmp_path, runs(SLOW), runs(again[:count]), GPUBENCH_CONFIRM_RUNS=confirm_runs)
    assert proc.returncode == (1 if slow else 0), proc.stdout + proc.stderr
    assert ("SLOWER (confirmed)" if slow else "SAME (SLOWER not confirmed)") in proc.stdout
    assert proc.stdout.splitlines()[-1].startswith(f"Confirmed by {count} more runs of the suite")
    assert len(calls(tmp_path / "build")) == 5 + count
    assert load(tmp_path / "gpubench.json").benchmarks[HTOD].repetition_values().size == 5
    confirmed = load(tmp_path / "gpubench.confirm.json")
    assert confirmed.benchmarks[HTOD].repetition_values().tolist() == pytest.approx(again[:count])


def test_unset_or_empty_confirming_runs_are_as_many_as_the_first(tmp_path: Path) -> None:
    proc = gate(tmp_path, runs(SLOW[:4]), runs([47.3, 47.5, 47.6, 47.7]), GPUBENCH_RUNS="4",
                GPUBENCH_CONFIRM_RUNS="")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert len(calls(tmp_path / "build")) == 8
    assert proc.stdout.splitlines()[-1].startswith("Confirmed by 4 more runs of the suite")


def test_too_few_confirming_runs_stop_the_gate_before_any_run(tmp_path: Path) -> None:
    """Two confirming runs against 15 can give no p < 0.01: a change found could never be
    confirmed, so the gate stops in one line, as for too few first runs."""
    proc = gate(tmp_path, runs(SLOW), GPUBENCH_CONFIRM_RUNS="2")
    assert proc.returncode == 2 and proc.stderr == "", proc.stdout + proc.stderr
    assert proc.stdout.startswith("gpubench-tools compare: --new-runs=2: 2 runs against the 15 of "
                                  ), proc.stdout
    assert proc.stdout.count("\n") == 1
    assert not calls(tmp_path / "build")


@pytest.mark.parametrize(
    ("flags", "status", "verdict"),
    [
        ([], 1, "FAIL: 0 of 2 benchmark(s) regressed, 1 unresolved"),
        (["--accept-unresolved"], 0, "OK: 0 of 2 benchmark(s) regressed, 1 unresolved (accepted"),
    ],
)
def test_a_benchmark_no_verdict_can_be_reached_on_fails_unless_accepted(
    tmp_path: Path, flags: list[str], status: int, verdict: str
) -> None:
    """A candidate whose runs state a noise_pct of 1e6 can tell nothing: UNRESOLVED, which is
    no change to confirm."""
    noisy = [
        document(
            copy_run(
                "HtoD",
                "pinned",
                "async",
                1 << 20,
                [h],
                counters={"noise_pct": 1e6, "host_timed": 0},
            )
            + copy_run("DtoH", "pinned", "async", 1 << 20, [40.0], counters=NOISE)
        )
        for h in SLOW
    ]
    proc = gate(tmp_path, noisy, None, *flags)
    assert proc.returncode == status, proc.stdout + proc.stderr
    assert proc.stdout.startswith(verdict) and "UNRESOLVED (1): no verdict" in proc.stdout
    assert not confirm_calls(tmp_path)


def test_files_whose_names_start_with_a_dash_are_files(tmp_path: Path) -> None:
    """A baseline and an OUT.json named `-...` are files to gpubench-tools compare and
    gpubench-tools merge, not options: the gate records, confirms and judges them as any others."""
    program = install(tmp_path / "build", runs(SLOW), runs([47.3, 47.5, 47.6, 47.7, 47.9]))
    write_json(tmp_path / "-baseline.json", BASELINE)
    proc = run_tool(
        ["gate", str(program), "-baseline.json", "-gpubench.json"],
        timeout=300,
        cwd=tmp_path,
        env={**os.environ, "GPUBENCH_RUNS": "5"},
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stdout.startswith("FAIL: 1 of 2 benchmark(s) regressed")
    assert "SLOWER (confirmed)" in proc.stdout
    assert len(load(tmp_path / "-gpubench.json").benchmarks[HTOD].repetition_values()) == 5
    assert len(load(tmp_path / "-gpubench.confirm.json").benchmarks[HTOD].repetition_values()) == 5


def test_changes_too_many_for_one_filter_are_each_judged_again(tmp_path: Path) -> None:
    """200 copy sizes all slower in the first runs: their names take more than a filter holds
    (the log names their family), and each is judged again on the confirming runs."""
    sizes = [4096 * (k + 1) for k in range(200)]

    def many(gbps: list[float]) -> list[dict]:
        return [
            document(
                [
                    e
                    for size in sizes
                    for e in copy_run("HtoD", "pinned", "async", size, [g], counters=NOISE)
                ]
            )
            for g in gbps
        ]

    baseline = document(
        [
            e
            for size in sizes
            for e in copy_run(
                "HtoD", "pinned", "async", size, list(np.linspace(49.3, 50.7, 15)), counters=NOISE
            )
        ],
        merged_runs=15,
    )
    program = install(tmp_path / "build", many(SLOW), many([49.5, 49.8, 50.0, 50.2, 50.5]))
    proc = run_tool(
        [
            "gate",
            str(program),
            str(write_json(tmp_path / "baseline.json", baseline)),
            str(tmp_path / "gpubench.json"),
        ],
        timeout=300,
        env={**os.environ, "GPUBENCH_RUNS": "5"},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith(
        "OK: 0 of 200 benchmark(s) regressed (0 FASTER, 0 SLOWER, 200 SAME)"
    )
    assert "Not confirmed (200)" in proc.stdout
    assert len(confirm_calls(tmp_path)) == 5
    assert proc.stdout.splitlines()[-1].endswith("judged again on them alone: `^copy(/|$)`")


def test_another_driver_is_named_first_and_records_nothing_again(tmp_path: Path) -> None:
    """Exit 3: no regression check, said in the first line, the comparison below it."""
    proc = gate(tmp_path, runs(SLOW, driver_version="590.10"))
    assert proc.returncode == 3
    assert proc.stdout.startswith(
        "gpubench-tools compare: no regression check: driver_version differ"
    )
    assert "REPORT: 2 benchmark(s) compared" in proc.stdout
    assert not confirm_calls(tmp_path)


def test_a_report_confirms_its_changes_and_never_fails(tmp_path: Path) -> None:
    proc = gate(tmp_path, runs(SLOW, driver_version="590.10"), None, "--report")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Comparison report, not a regression check" in proc.stdout
    assert f"  {HTOD}: " in proc.stdout and "SLOWER" in proc.stdout
    assert len(confirm_calls(tmp_path)) == 5


# How a baseline recorded with flags of its own says so in its context, as gpubench writes it.
SETTINGS = {
    "benchmark_filter": "^copy/",
    "benchmark_min_time": "0.5s",
    "benchmark_min_warmup_time": "0.1s",
    "benchmark_enable_random_interleaving": "true",
    "saxpy_l2": "warm",
    "energy": "NVML's energy counter (nvmlDeviceGetTotalEnergyConsumption) from one of "
    "its updates to the first at least 10 updates, 10 steps and 1 s later",
    "selected_devices": "1",
    "--sizes": "4K, 1M",
}
SETTING_FLAGS = [
    "--benchmark_filter=^copy/",
    "--benchmark_min_time=0.5s",
    "--benchmark_min_warmup_time=0.1s",
    "--benchmark_enable_random_interleaving=true",
    "--energy",
    "--device=1",
    "--l2=warm",
    "--sizes=4K, 1M",
]


def test_the_candidate_is_recorded_with_the_baselines_settings(tmp_path: Path) -> None:
    """A baseline recorded with a filter, another minimum time, --energy, a device, --l2 or
    other sizes (a list holding a space, one flag still) is compared with runs recorded alike,
    the confirming runs too: with gpubench's defaults, the candidate would be refused as
    measured otherwise (exit 3), or lack the baseline's sizes (exit 5), after its runs."""
    baseline = dict(BASELINE, context={**BASELINE["context"], **SETTINGS})
    proc = gate(tmp_path, runs(SLOW, **SETTINGS), baseline_doc=baseline)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "FAIL: 1 of 2 benchmark(s) regressed" in proc.stdout, proc.stdout
    every = calls(tmp_path / "build")
    assert len(every) == 10
    assert all(call[: len(SETTING_FLAGS)] == SETTING_FLAGS for call in every), every
    assert (
        f"gpubench-tools gate: recording with the baseline's settings: "
        f"{' '.join(SETTING_FLAGS)}" in proc.stderr.splitlines()
    )


def test_a_gzip_baseline_gates_as_the_json_it_holds(tmp_path: Path) -> None:
    """Its settings given to the candidate's runs, its runs compared with them."""
    baseline = dict(BASELINE, context={**BASELINE["context"], **SETTINGS})
    proc = gate(tmp_path, runs(SLOW, **SETTINGS), baseline_doc=baseline, packed=True)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stdout.startswith("FAIL: 1 of 2 benchmark(s) regressed"), proc.stdout
    assert all(call[: len(SETTING_FLAGS)] == SETTING_FLAGS for call in calls(tmp_path / "build"))


def test_an_output_named_compressed_is_written_so_with_its_confirm_file(tmp_path: Path) -> None:
    """The confirm file takes the output's ending; each ending's compression is merge's
    (test_merge_runs.py), which writes the recordings."""
    ending, magic = "xz", b"\xfd7zXZ\x00"
    proc = gate(
        tmp_path, runs(SLOW), runs([47.3, 47.5, 47.6, 47.7, 47.9]), out=f"gpubench.json.{ending}"
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "SLOWER (confirmed)" in proc.stdout
    for name in (f"gpubench.json.{ending}", f"gpubench.confirm.json.{ending}"):
        assert (tmp_path / name).read_bytes().startswith(magic)
        assert len(load(tmp_path / name).benchmarks[HTOD].repetition_values()) == 5


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        ("benchmark_filter", "^copy/\n--device=all", "^copy/\\n--device=all"),
        ("benchmark_filter", "copy\u2028", "copy\\u2028"),
        ("benchmark_min_time", 0.5, "0.5"),
        ("saxpy_l2", ["warm"], '["warm"]'),
    ],
)
def test_a_setting_no_flag_can_hold_stops_the_gate_before_any_run(
    tmp_path: Path, key: str, value: object, said: str
) -> None:
    baseline = dict(BASELINE, context={**BASELINE["context"], key: value})
    proc = gate(tmp_path, runs(SLOW), baseline_doc=baseline)
    assert proc.returncode == 2 and proc.stderr == "", proc.stdout + proc.stderr
    assert proc.stdout == (
        f"gpubench-tools flags: {tmp_path / 'baseline.json'}: context {key!r} "
        f"is not text a flag can hold: {said}\n"
    ), proc.stdout
    assert not calls(tmp_path / "build")


def test_every_measurement_setting_is_given_by_a_flag_or_the_build() -> None:
    """A setting added to settings.MEASUREMENT_SETTINGS needs its flag in recorded_flags:
    a gate that records its candidate without it is refused after the runs."""
    assert {s.key for s in MEASUREMENT_SETTINGS} <= FLAGS.keys() | NOT_FLAGS
    assert {FILTER_KEY, "benchmark_enable_random_interleaving"} <= FLAGS.keys()


# gpubench-tools compare's exit status for measured otherwise, which the gate's refusal of another
# build type shares.
MEASURED_OTHERWISE = 3


def with_build_type(doc: dict, build_type: str) -> dict:
    return dict(doc, context={**doc["context"], "gpubench_build_type": build_type})


@pytest.mark.parametrize(("base", "candidate"), [("Debug", "Release"), ("Release", "Debug")])
def test_a_baseline_of_another_build_type_stops_the_gate_before_any_run(
    tmp_path: Path, base: str, candidate: str
) -> None:
    """The build type is the binary's, which no flag sets: gpubench --version states it without
    a GPU, so a baseline of another is refused before the runs, not as measured otherwise by
    gpubench-tools compare after them."""
    proc = gate(
        tmp_path,
        runs(SLOW, gpubench_build_type=candidate),
        baseline_doc=with_build_type(BASELINE, base),
    )
    assert proc.returncode == MEASURED_OTHERWISE and proc.stderr == "", proc.stdout + proc.stderr
    baseline = tmp_path / "baseline.json"
    assert proc.stdout == (
        f"gpubench-tools flags: {baseline}: recorded by a {base} build (context "
        f"gpubench_build_type), and a {candidate} build measures otherwise: no flag makes it "
        f"measure as a {base} build does; build gpubench as {base}, or record {baseline} with "
        f"the {candidate} build\n"
    ), proc.stdout
    assert not calls(tmp_path / "build")


@pytest.mark.parametrize(("base", "candidate"), [(None, "Debug"), ("Release", "Release")])
def test_a_baseline_of_no_or_the_same_build_type_is_gated(
    tmp_path: Path, base: str | None, candidate: str
) -> None:
    """A baseline that states no build type says nothing of the candidate's: it is gated as
    before, as it is where both state the same."""
    baseline = BASELINE if base is None else with_build_type(BASELINE, base)
    proc = gate(
        tmp_path,
        runs([49.8, 50.0, 50.1, 50.3, 49.9], gpubench_build_type=candidate),
        baseline_doc=baseline,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("OK: 0 of 2 benchmark(s) regressed")
    assert len(calls(tmp_path / "build")) == 5


@pytest.mark.parametrize("flag", ["--report", "--rep"])
def test_a_report_compares_builds_of_another_type(tmp_path: Path, flag: str) -> None:
    """--report (or a prefix argparse reads as it) compares whatever the builds: the candidate
    is recorded, and the report names what was measured otherwise."""
    proc = gate(
        tmp_path,
        runs([49.8, 50.0, 50.1, 50.3, 49.9], gpubench_build_type="Release"),
        None,
        flag,
        baseline_doc=with_build_type(BASELINE, "Debug"),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "measured otherwise: gpubench_build_type Debug vs Release" in proc.stdout
    assert len(calls(tmp_path / "build")) == 5


def test_a_binary_that_states_no_build_type_is_left_to_compare(tmp_path: Path) -> None:
    """A gpubench without --version: gpubench-tools compare refuses the other build type, after the
    runs."""
    program = install(
        tmp_path / "build", runs(SLOW, gpubench_build_type="Release"), states_build_type=False
    )
    baseline = write_json(tmp_path / "baseline.json", with_build_type(BASELINE, "Debug"))
    proc = run_tool(
        ["gate", str(program), str(baseline), str(tmp_path / "gpubench.json")],
        timeout=300,
        env={**os.environ, "GPUBENCH_RUNS": "5"},
    )
    assert proc.returncode == MEASURED_OTHERWISE, proc.stdout + proc.stderr
    assert proc.stdout.startswith(
        "gpubench-tools compare: no regression check: measured "
        "otherwise (gpubench_build_type Debug vs Release; "
    )
    assert len(calls(tmp_path / "build")) == 5


# The gate's own exit status where a recording fails: apart from every verdict's.
RECORDING_FAILED = 4


@pytest.mark.parametrize(
    ("fault", "said"),
    [
        ({"exit": 1}, "gpubench exited 1"),  # 1 is also the gate's "regression"
        ({"exit": 3}, "gpubench exited 3"),  # 3 is also the gate's "another GPU, driver or CUDA"
        ({"signal": "KILL"}, "gpubench was killed by signal SIGKILL"),
        ({"exit": 0}, "gpubench exited 0 and wrote no result"),
    ],
)
def test_a_failed_run_stops_the_gate_and_is_named(tmp_path: Path, fault: dict, said: str) -> None:
    proc = gate(tmp_path, runs(SLOW), faults={2: fault})
    assert proc.returncode == RECORDING_FAILED and proc.stdout == ""
    assert proc.stderr.splitlines()[-1] == f"gpubench-tools record: run 2 of 5: {said}"
    assert len(calls(tmp_path / "build")) == 2
    assert not (tmp_path / "gpubench.json").exists()


def test_a_run_that_does_not_finish_stops_the_gate(tmp_path: Path) -> None:
    started = time.monotonic()
    proc = gate(tmp_path, runs(SLOW), faults={2: {"sleep": 600}}, GPUBENCH_RUN_TIMEOUT="2")
    assert time.monotonic() - started < 60
    assert proc.returncode == RECORDING_FAILED and proc.stdout == ""
    assert proc.stderr.splitlines()[-1] == "gpubench-tools record: run 2 of 5 did not finish in 2 s"
    assert not running(tmp_path / "build")
    assert not (tmp_path / "gpubench.json").exists()


@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGINT"])
def test_a_signal_stops_the_gate_and_the_run_in_progress(tmp_path: Path, signal_name: str) -> None:
    """A CI cancel: gpubench is stopped too (it would hold the GPU and write the output later),
    one line says where, nothing is written."""
    number = signal.Signals[signal_name]
    program = install(tmp_path / "build", runs(SLOW), faults={2: {"sleep": 120}})
    out = tmp_path / "gpubench.json"
    gate_process = subprocess.Popen(
        [
            *command("gate"),
            str(program),
            str(write_json(tmp_path / "baseline.json", BASELINE)),
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "GPUBENCH_RUNS": "3"},
    )
    try:
        while len(calls(tmp_path / "build")) < 2:
            assert gate_process.poll() is None, gate_process.communicate()
            time.sleep(0.1)
        gate_process.send_signal(number)
        stdout, stderr = gate_process.communicate(timeout=60)
    finally:
        gate_process.kill()
        for pid in running(tmp_path / "build"):
            os.kill(pid, signal.SIGKILL)
    assert gate_process.returncode == 128 + number and stdout == ""
    assert stderr.splitlines()[-1] == (
        f"gpubench-tools record: stopped by {signal_name} during run 2 of 3; {out} not written"
    )
    assert not running(tmp_path / "build") and not out.exists()


@pytest.mark.parametrize("baseline", ["missing.json", "list.json", "cut.json.gz"])
def test_an_unusable_baseline_stops_the_gate_before_any_run(tmp_path: Path, baseline: str) -> None:
    (tmp_path / "list.json").write_text("[1, 2]")
    packed = gzip.compress(json.dumps(BASELINE).encode())
    (tmp_path / "cut.json.gz").write_bytes(packed[: len(packed) // 2])
    program = install(tmp_path / "build", runs(SLOW))
    proc = run_tool(
        ["gate", str(program), str(tmp_path / baseline), str(tmp_path / "gpubench.json")],
        timeout=60,
    )
    assert proc.returncode == 2 and proc.stdout.count("\n") == 1
    assert proc.stdout.startswith(f"gpubench-tools compare: {tmp_path / baseline}: ")
    assert not calls(tmp_path / "build")


def test_a_baseline_of_one_process_stops_the_gate_before_any_run(tmp_path: Path) -> None:
    """A baseline recorded in one process (no merged_runs) has no regression check to give: the
    gate says so in gpubench-tools compare's one line before it records anything."""
    program = install(tmp_path / "build", runs(SLOW))
    one = dict(
        BASELINE, context={k: v for k, v in BASELINE["context"].items() if k != "merged_runs"}
    )
    baseline = write_json(tmp_path / "baseline.json", one)
    proc = run_tool(
        ["gate", str(program), str(baseline), str(tmp_path / "gpubench.json")], timeout=60
    )
    assert proc.returncode == 2 and proc.stdout.count("\n") == 1, proc.stdout + proc.stderr
    assert proc.stdout.startswith(
        f"gpubench-tools compare: no regression check: BASE {baseline} is one process's run"
    )
    assert not calls(tmp_path / "build")


@pytest.mark.parametrize(
    ("output", "problem"),
    [
        ("no/such/gpubench.json", "cannot write the output there"),
        ("gpubench.json/", "names a folder, not a file to write"),
        ("/dev/full", "cannot write the output there (/dev/full fails every write)"),
    ],
)
def test_an_unwritable_output_stops_the_gate_before_any_run(
    tmp_path: Path, output: str, problem: str
) -> None:
    if output == "/dev/full" and not Path(output).exists():
        pytest.skip("needs /dev/full")
    program = install(tmp_path / "build", runs(SLOW))
    baseline = write_json(tmp_path / "baseline.json", BASELINE)
    proc = run_tool(["gate", str(program), str(baseline), output], cwd=tmp_path, timeout=60)
    assert (proc.returncode, proc.stderr) == (2, f"gpubench-tools gate: {output}: {problem}\n")
    assert not calls(tmp_path / "build")


@pytest.mark.parametrize("output", ["baseline.json", "build", "confirm of the baseline"])
def test_an_output_that_is_an_input_stops_the_gate_before_any_run(
    tmp_path: Path, output: str
) -> None:
    """OUT.json, or the OUT.confirm.json beside it, naming the baseline or the binary: one line,
    no run, the input as it was (a stale confirm file is removed, so it would be deleted)."""
    program = install(tmp_path / "build", runs(SLOW))
    baseline = write_json(tmp_path / "run.confirm.json", BASELINE)
    out = {
        "baseline.json": tmp_path / "." / baseline.name,
        "build": program,
        "confirm of the baseline": tmp_path / "run.json",
    }[output]
    inputs = {path: path.read_bytes() for path in (program, baseline)}
    proc = run_tool(["gate", str(program), str(baseline), str(out)], timeout=60)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and proc.stdout == ""
    assert "is also an input" in proc.stderr and "would destroy it" in proc.stderr
    assert not calls(tmp_path / "build")
    assert {path: path.read_bytes() for path in inputs} == inputs


def test_an_output_linked_to_its_confirm_file_stops_the_gate_before_any_run(tmp_path: Path) -> None:
    """OUT.json a link to OUT.confirm.json: the confirming runs would replace the candidate's
    runs and be judged against themselves."""
    (tmp_path / "gpubench.json").symlink_to(tmp_path / "gpubench.confirm.json")
    proc = gate(tmp_path, runs(SLOW), runs([49.8, 50.0, 50.1, 50.3, 49.9]))
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout + proc.stderr
    assert proc.stderr == (
        f"gpubench-tools gate: {tmp_path / 'gpubench.json'}: names the file its "
        f"confirming runs go to ({tmp_path / 'gpubench.confirm.json'}); they "
        "would take the place of its runs\n"
    )
    assert not calls(tmp_path / "build")


def test_bad_usage_is_one_line() -> None:
    proc = run_tool(["gate", "build/gpubench"], timeout=60)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and proc.stdout == ""


@pytest.mark.parametrize("flag", ["--bogus-compare-flag", "--threshold=-5", "--filter=("])
def test_bad_compare_flags_stop_the_gate_before_any_run(tmp_path: Path, flag: str) -> None:
    proc = gate(tmp_path, runs(SLOW), None, flag)
    assert proc.returncode == 2 and (proc.stdout + proc.stderr).count("\n") == 1
    assert proc.stdout.startswith("gpubench-tools compare: ")
    assert not calls(tmp_path / "build")


@pytest.mark.parametrize(
    "flags",
    [
        ["--confirm=other.json"],
        ["--changed-filter", "x.txt"],
        ["--conf", "other.json"],
        ["--changed=x.txt"],
        ["--help"],
        ["-h"],
        ["--markdown", "--he"],
    ],
)
def test_compare_flags_the_gate_sets_itself_stop_it_before_any_run(
    tmp_path: Path, flags: list[str]
) -> None:
    """Passed on, --confirm would make the gate's verdict rest on another file (a slowdown in
    every run passed as not confirmed), --changed-filter would leave the gate's own filter
    unwritten (no change confirmed), and --help would end each comparison with exit 0 and no
    verdict, after the runs."""
    write_json(tmp_path / "other.json", BASELINE)
    proc = gate(tmp_path, runs(SLOW), runs(SLOW), *flags)
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout + proc.stderr
    assert proc.stderr.count("\n") == 1
    flag = next(f for f in reversed(flags) if f.startswith("-"))
    assert proc.stderr.startswith(f"gpubench-tools gate: {flag}: gpubench-tools compare's --"), (
        proc.stderr
    )
    assert not calls(tmp_path / "build")


# The gate's exit status where the candidate lacks benchmarks the baseline holds.
MISSING_BENCHMARKS = 5


def test_a_benchmark_missing_from_the_candidate_fails_the_gate(tmp_path: Path) -> None:
    """A benchmark gpubench no longer runs (renamed, dropped, skipped) is no regression check
    passed: the gate fails and names it."""
    dtoh_only = [
        document(copy_run("DtoH", "pinned", "async", 1 << 20, [40.0 + 0.01 * i], counters=NOISE))
        for i in range(5)
    ]
    proc = gate(tmp_path, dtoh_only)
    assert proc.returncode == MISSING_BENCHMARKS, proc.stdout + proc.stderr
    assert proc.stdout == (
        f"gpubench-tools compare: {tmp_path / 'gpubench.json'} lacks 1 of the 2 "
        f"benchmark(s) of {tmp_path / 'baseline.json'}: {HTOD}; record "
        "them, or a baseline without them\n"
    )
    assert not confirm_calls(tmp_path)


def test_a_benchmark_only_in_the_candidate_passes(tmp_path: Path) -> None:
    """A new benchmark has no baseline yet."""
    more = [
        document(
            recording([h], [40.0])["benchmarks"]
            + copy_run("DtoD", "device", "async", 1 << 20, [900.0], counters=NOISE)
        )
        for h in [49.8, 50.0, 50.1, 50.3, 49.9]
    ]
    proc = gate(tmp_path, more)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("OK: 0 of 2 benchmark(s) regressed")


def test_a_report_lists_what_the_candidate_lacks_and_passes(tmp_path: Path) -> None:
    dtoh_only = [
        document(copy_run("DtoH", "pinned", "async", 1 << 20, [40.0 + 0.01 * i], counters=NOISE))
        for i in range(5)
    ]
    proc = gate(tmp_path, dtoh_only, None, "--report")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Only in BASE (1), not compared" in proc.stdout


@pytest.mark.parametrize("tmpdir", ["missing", "a_file"])
@pytest.mark.parametrize("script", ["gate", "record"])
def test_a_tmpdir_without_room_for_a_folder_is_one_line_before_any_run(
    tmp_path: Path, script: str, tmpdir: str
) -> None:
    """Exit status 2, as for any setting that stops the gate before it runs: mktemp's own
    status, 1, is the gate's "a regression"."""
    (tmp_path / "a_file").write_text("")
    program = install(tmp_path / "build", runs(SLOW))
    baseline = [str(write_json(tmp_path / "baseline.json", BASELINE))] if script == "gate" else []
    proc = run_tool(
        [script, str(program), *baseline, str(tmp_path / "gpubench.json")],
        timeout=60,
        env={**os.environ, "TMPDIR": str(tmp_path / tmpdir)},
    )
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert proc.stderr.startswith(
        f"gpubench-tools {script}: cannot make a temporary folder in TMPDIR: "
    )
    assert proc.stderr.count("\n") == 1 and str(tmp_path / tmpdir) in proc.stderr
    assert not calls(tmp_path / "build") and not (tmp_path / "gpubench.json").exists()


def test_confirming_runs_that_cannot_be_judged_claim_no_confirmation(tmp_path: Path) -> None:
    """Confirming runs of another driver (one updated during the gate) judge nothing again: the gate
    prints gpubench-tools compare's line alone, not a line saying the changes were judged again."""
    proc = gate(tmp_path, runs(SLOW), runs(SLOW, driver_version="590.10"))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stdout.count("\n") == 1, proc.stdout
    assert proc.stdout.startswith("gpubench-tools compare: "), proc.stdout
    assert "differs from NEW's" in proc.stdout


@pytest.mark.parametrize(("gate_runs", "baseline_runs", "tie"),
                         [("2", 15, False), ("3", 5, False), ("3", 13, True)])
def test_too_few_runs_to_find_a_change_stop_the_gate_before_any_run(
    tmp_path: Path, gate_runs: str, baseline_runs: int, tie: bool
) -> None:
    """2 runs against 15, or 3 against 5, can give no p < 0.01 in the U test: such a gate could
    never fail, so it stops in one line rather than pass whatever the candidate does. 3 runs
    against 13 can, but not for a benchmark whose runs hold a tie or two (scipy's p is then
    approximated, 0.0105 at the least): that gate stops too, saying so."""
    baseline = recording(
        list(np.linspace(49.3, 50.7, baseline_runs)),
        list(np.linspace(39.8, 40.2, baseline_runs)),
        merged_runs=baseline_runs,
    )
    proc = gate(tmp_path, runs([25.0] * 5), baseline_doc=baseline, GPUBENCH_RUNS=gate_runs)
    assert proc.returncode == 2 and proc.stderr == "", proc.stdout + proc.stderr
    assert proc.stdout == (
        f"gpubench-tools compare: --new-runs={gate_runs}: {gate_runs} runs against the "
        f"{baseline_runs} of "
        f"{tmp_path / 'baseline.json'} can give no p < 0.01 in the U test"
        f"{' to runs with a tie or two' if tie else ''}, so no{' such' if tie else ''} benchmark "
        "could be found SLOWER or FASTER; record more runs "
        "(gpubench-tools gate: GPUBENCH_RUNS, GPUBENCH_CONFIRM_RUNS)\n"
    ), proc.stdout
    assert not calls(tmp_path / "build")


# Out of range, no decimal, past the digits bash's arithmetic holds (99999999999999999999 would
# wrap to 340), or with a control character, which the line shows as ?.
BAD_SETTINGS = [
    *[
        ("GPUBENCH_RUNS", runs, "a whole number from 2 to 1000")
        for runs in [
            "1",
            "0",
            "1001",
            "abc",
            "five",
            "-5",
            " 5",
            "5 ",
            "0x10",
            "1e3",
            "+5",
            "99999999999999999999",
            "2\n3",
            "5\t",
            "3\x1b[2J",
        ]
    ],
    *[
        ("GPUBENCH_CONFIRM_RUNS", runs, "a whole number from 2 to 1000")
        for runs in ["1", "1001", "three", "-3", "3 ", "0x3", "99999999999999999999", "3\x1b[2J"]
    ],
    *[
        ("GPUBENCH_RUN_TIMEOUT", seconds, "a whole number of seconds from 1 to 86400")
        for seconds in ["0", "ten", "1.5", "86401", "-1", "99999999999999999999", "60\r"]
    ],
]


def shown(value: str) -> str:
    """A value as the scripts' lines show it: each character bash does not print as ?."""
    return "".join(c if " " <= c <= "~" else "?" for c in value)


@pytest.mark.parametrize(("variable", "value", "rule"), BAD_SETTINGS)
def test_a_setting_ci_record_does_not_take_is_the_gates_line_before_any_run(
    tmp_path: Path, variable: str, value: str, rule: str
) -> None:
    """gpubench-tools record's settings reach it through the gate's environment; the gate checks
    them as it does, in its own line, rather than read a bad one as too few runs or leave it to the
    recording."""
    proc = gate(tmp_path, runs(SLOW), **{variable: value})
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout + proc.stderr
    assert proc.stderr == (
        f"gpubench-tools gate: {variable} must be {rule}, not '{shown(value)}'\n"
    ), proc.stderr
    assert not calls(tmp_path / "build")


@pytest.mark.parametrize("variable",
                         ["GPUBENCH_RUNS", "GPUBENCH_CONFIRM_RUNS", "GPUBENCH_RUN_TIMEOUT"])
def test_a_bad_setting_is_found_before_the_baseline_is_read(tmp_path: Path, variable: str) -> None:
    """The settings come first: an unusable baseline, which gpubench-tools compare would name, is
    not reached."""
    proc = gate(tmp_path, runs(SLOW), baseline_doc={"benchmarks": []}, **{variable: "0"})
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout + proc.stderr
    assert proc.stderr.startswith(f"gpubench-tools gate: {variable} must be "), proc.stderr
    assert not calls(tmp_path / "build")


@pytest.mark.parametrize(("value", "recorded"), [("007", 7), ("", 5)])
def test_runs_with_leading_zeros_are_decimal_and_none_are_five(
    tmp_path: Path, value: str, recorded: int
) -> None:
    """007 is seven runs, not an octal number; an empty GPUBENCH_RUNS is the default, five."""
    proc = gate(
        tmp_path, runs([49.8, 50.0, 50.1, 50.3, 49.9, 50.2, 49.7][:recorded]), GPUBENCH_RUNS=value
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(calls(tmp_path / "build")) == recorded
    assert load(tmp_path / "gpubench.json").benchmarks[HTOD].repetition_values().size == recorded


def test_three_runs_against_fifteen_can_fail(tmp_path: Path) -> None:
    proc = gate(tmp_path, runs(SLOW[:3]), runs([47.3, 47.5, 47.6]), GPUBENCH_RUNS="3")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "SLOWER (confirmed)" in proc.stdout


@pytest.mark.parametrize("output", ["fifo.json", "/dev/null"])
def test_an_output_the_gate_cannot_read_back_stops_it_before_any_run(
    tmp_path: Path, output: str
) -> None:
    """The gate compares what it wrote: a FIFO or a device is empty when read back, so it would
    fail after the runs; it is refused before them."""
    if output == "fifo.json":
        os.mkfifo(tmp_path / output)
    program = install(tmp_path / "build", runs(SLOW))
    baseline = write_json(tmp_path / "baseline.json", BASELINE)
    proc = run_tool(["gate", str(program), str(baseline), output], cwd=tmp_path, timeout=60)
    assert (proc.returncode, proc.stderr) == (
        2,
        f"gpubench-tools gate: {output}: not a regular file; the gate reads its output back to "
        "compare it\n",
    )
    assert not calls(tmp_path / "build")
