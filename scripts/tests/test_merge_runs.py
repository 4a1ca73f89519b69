"""gpubench-tools merge and gpubench-tools record: separate runs of one build become one result with
one repetition per run, which gpubench-tools compare judges."""

import bz2
import gzip
import json
import lzma
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from forked_command import run_tool
from conftest import SCRIPTS, RunScript, command
from fake_gpubench import calls, install, running
from gbench_builder import (
    bad_results,
    copy_run,
    document,
    launch_run,
    saxpy_run,
    write_bad,
    write_json,
)

from gpubench_tools.cli.merge import main as merge_main
from gpubench_tools.reading.result_file import load

COPY = "copy/HtoD/pinned/async/1048576"
LAUNCH = "launch/driver/submit/params:0"


def one_run(gbps: float, us: float, **context: str) -> dict:
    counters = {"noise_pct": 0.5, "host_timed": 0}
    return document(copy_run("HtoD", "pinned", "async", 1 << 20, gbps, counters=counters)
                    + launch_run("driver", "submit", 0, [us, us * 1.1, us * 0.9],
                                 counters={"noise_pct": 6.0, "host_timed": 1}), **context)


def test_one_repetition_per_run(tmp_path: Path, run_script: RunScript) -> None:
    runs = [write_json(tmp_path / f"run_{i}.json", one_run(50.0 + i, 4.0 + i))
            for i in range(3)]
    out = tmp_path / "merged.json"
    proc = run_script("merge", *runs, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"wrote {out}: 3 runs, 6 repetitions\n"
    merged = load(out)
    assert merged.context["merged_runs"] == 3
    copy, launch = merged.benchmarks[COPY], merged.benchmarks[LAUNCH]
    assert copy.repetition_values().tolist() == pytest.approx([50.0, 51.0, 52.0])
    # A run with repetitions gives the median of them.
    assert launch.repetition_values().tolist() == pytest.approx([4.0, 5.0, 6.0])
    assert copy.summary == "median of 3 repetitions" and copy.value() == pytest.approx(51.0)
    assert copy.host_timed is False and launch.host_timed is True
    assert launch.noise_pct == pytest.approx(6.0)
    cv = json.loads(out.read_text())["benchmarks"]
    (cv_entry,) = [e for e in cv if e["name"] == f"{COPY}/manual_time_cv"]
    assert cv_entry["bytes_per_second"] == pytest.approx(np.std([50, 51, 52], ddof=1) / 51)
    assert cv_entry["host_timed"] == 0  # a cv of zeros is 0, never NaN


def in_unit(doc: dict, unit: str, per_us: float) -> dict:
    """`doc` with every time written in `unit`, `per_us` of it to the µs (a cv, a ratio, as it
    is)."""
    for entry in doc["benchmarks"]:
        if entry.get("aggregate_name") == "cv":
            entry.update(time_unit=unit)
            continue
        entry.update(time_unit=unit, real_time=entry["real_time"] * per_us,
                     cpu_time=entry["cpu_time"] * per_us)
    return doc


@pytest.mark.parametrize(("ending", "unpack"), [(".gz", gzip.decompress),
                                                 (".xz", lzma.decompress),
                                                 (".bz2", bz2.decompress)])
def test_an_output_named_compressed_is_the_same_json_compressed(
        tmp_path: Path, run_script: RunScript, ending: str,
        unpack: Callable[[bytes], bytes]) -> None:
    """Byte for byte the plain output once unpacked, and the same bytes each time merged."""
    runs = [write_json(tmp_path / f"run_{i}.json", one_run(50.0 + i, 4.0 + i)) for i in range(3)]
    plain = tmp_path / "merged.json"
    assert run_script("merge", *runs, "-o", plain).returncode == 0
    packed = [tmp_path / f"merged.json{ending}", tmp_path / f"again.json{ending}"]
    for out in packed:
        proc = run_script("merge", *runs, "-o", out)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == f"wrote {out}: 3 runs, 6 repetitions\n"
    assert unpack(packed[0].read_bytes()) == plain.read_bytes()
    assert packed[0].read_bytes() == packed[1].read_bytes()
    assert load(packed[0]).benchmarks[COPY].repetition_values().tolist() == [50.0, 51.0, 52.0]


@pytest.mark.parametrize("merged_first", [False, True])
def test_runs_in_other_time_units_are_converted(tmp_path: Path, run_script: RunScript,
                                                merged_first: bool) -> None:
    """A run in ns beside runs in µs: each time is in the first run's unit, exact to the digit,
    and the median is the median of the same figure."""
    runs = [write_json(tmp_path / "us.json", one_run(50.0, 4.438)),
            write_json(tmp_path / "ns.json", in_unit(one_run(50.0, 4.448), "ns", 1000)),
            write_json(tmp_path / "s.json", in_unit(one_run(50.0, 4.458), "s", 1e-6))]
    if merged_first:
        assert run_script("merge", *runs[:2], "-o", tmp_path / "a.json").returncode == 0
        runs = [tmp_path / "a.json", runs[2]]
    out = tmp_path / "merged.json"
    proc = run_script("merge", *runs, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert load(out).benchmarks[LAUNCH].values["real_time_us"] == pytest.approx(4.448)
    entries = [e for e in json.loads(out.read_text())["benchmarks"]
               if e["run_name"] == f"{LAUNCH}/manual_time"]
    assert {e["time_unit"] for e in entries} == {"us"}
    times = [e["real_time"] for e in entries if e["run_type"] == "iteration"]
    assert times == [4.438, 4.448, 4.458]  # each its digits, as written in µs
    (median,) = [e for e in entries if e.get("aggregate_name") == "median"]
    assert median["real_time"] == 4.448


def test_recordings_pool_their_runs(tmp_path: Path, run_script: RunScript) -> None:
    """A merged recording gives each repetition as a run, of the benchmarks it holds."""
    first = [write_json(tmp_path / f"a_{i}.json", one_run(50.0 + i, 4.0)) for i in range(3)]
    run_script("merge", *first, "-o", tmp_path / "first.json")
    again = []
    for i in range(2):
        doc = one_run(40.0 + i, 4.0)
        doc["benchmarks"] = [e for e in doc["benchmarks"] if e["run_name"].startswith(COPY)]
        again.append(write_json(tmp_path / f"b_{i}.json", doc))
    run_script("merge", *again, "-o", tmp_path / "again.json")
    out = tmp_path / "pooled.json"
    proc = run_script("merge", tmp_path / "first.json", tmp_path / "again.json",
                      "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"wrote {out}: 5 runs, 8 repetitions\n"
    pooled = load(out)
    assert pooled.context["merged_runs"] == 5
    assert pooled.benchmarks[COPY].repetition_values().tolist() == \
        pytest.approx([50.0, 51.0, 52.0, 40.0, 41.0])
    assert pooled.benchmarks[LAUNCH].repetition_values().size == 3
    assert pooled.benchmarks[COPY].value() == pytest.approx(50.0)


@pytest.mark.parametrize("count", [0, -2, 2.5, True, "5", None, [3], 2**17 + 1, 9 * 10**4299])
def test_a_merged_run_count_that_is_no_count_is_refused(tmp_path: Path, run_script: RunScript,
                                                        count: object) -> None:
    a = write_json(tmp_path / "a.json", one_run(50.0, 4.0))
    b = write_json(tmp_path / "b.json", one_run(50.0, 4.0, merged_runs=count))
    proc = run_script("merge", a, b, "-o", tmp_path / "m.json")
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith(f"gpubench-tools merge: {b}: merged_runs ")
    assert not (tmp_path / "m.json").exists()


def test_a_recording_of_more_repetitions_than_merged_runs_is_refused(
        tmp_path: Path, run_script: RunScript) -> None:
    """Each repetition of a merged recording is a run: one of 3 repetitions saying it merged 1
    run would be counted as 3 runs under a merged_runs of 1."""
    a = write_json(tmp_path / "a.json", one_run(50.0, 4.0))
    b = write_json(tmp_path / "b.json", one_run(50.0, 4.0, merged_runs=1))
    proc = run_script("merge", a, b, "-o", tmp_path / "m.json")
    assert (proc.returncode, proc.stdout) == (2, ""), proc.stdout
    assert proc.stderr == (f"gpubench-tools merge: {b}: benchmark '{LAUNCH}/manual_time' holds 3 "
                           "repetitions, its merged_runs 1: a merged recording holds one "
                           "repetition per run\n")
    assert not (tmp_path / "m.json").exists()


def test_a_context_no_json_can_hold_is_one_line(tmp_path: Path, run_script: RunScript) -> None:
    """A NaN in the first run's context (the loader reads one): one line, no file written."""
    a = write_json(tmp_path / "a.json", one_run(50.0, 4.0))
    a.write_text(a.read_text().replace('"context": {', '"context": {"cpu_load": NaN, ', 1))
    b = write_json(tmp_path / "b.json", one_run(50.0, 4.0))
    proc = run_script("merge", a, b, "-o", tmp_path / "m.json")
    assert (proc.returncode, proc.stdout) == (2, ""), proc.stderr
    assert proc.stderr == ("gpubench-tools merge: the merged runs cannot be written as JSON: Out "
                           "of range float values are not JSON compliant: nan\n")
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize(("key", "value"), [("gpu_uuid", "GPU-1111"),
                                            ("driver_version", "590.1"),
                                            ("gpubench_version", "0.2.0")])
def test_runs_of_another_gpu_or_build_are_refused(tmp_path: Path, run_script: RunScript,
                                                  key: str, value: str) -> None:
    a = write_json(tmp_path / "a.json", one_run(50.0, 4.0))
    b = write_json(tmp_path / "b.json", one_run(50.0, 4.0, **{key: value}))
    proc = run_script("merge", a, b, "-o", tmp_path / "m.json")
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith(f"gpubench-tools merge: {b}: {key} ")
    assert not (tmp_path / "m.json").exists()


ENERGY = "NVML's energy counter from one of its updates to the first at least 10 updates later"


@pytest.mark.parametrize(("first", "second", "line"), [
    ({"saxpy_l2": "cold"}, {"saxpy_l2": "warm"}, "saxpy_l2 'warm' differs from 'cold'"),
    ({"saxpy_l2": "cold"}, {}, "saxpy_l2 (absent) differs from 'cold'"),
    ({}, {"energy": ENERGY}, "energy 'on' differs from 'off'"),
    ({"energy": ENERGY}, {}, "energy 'off' differs from 'on'"),
    ({"gpubench_build_type": "Release"}, {"gpubench_build_type": "Debug"},
     "gpubench_build_type 'Debug' differs from 'Release'"),
    ({"benchmark_min_time": "0s"}, {"benchmark_min_time": "100x"},
     "benchmark_min_time '100x' differs from '0s'"),
    ({"benchmark_min_warmup_time": "0s"}, {},
     "benchmark_min_warmup_time (absent) differs from '0s'"),
    ({}, {"benchmark_filter": "^saxpy/"},
     "benchmark_filter '^saxpy/' differs from (absent) in"),
    ({"benchmark_filter": "^saxpy/"}, {"benchmark_filter": "^(saxpy|copy)/"},
     "benchmark_filter '^(saxpy|copy)/' differs from '^saxpy/' in"),
    ({"selected_devices": "0"}, {"selected_devices": "0,1"},
     "selected_devices '0,1' differs from '0'"),
    ({"device_1": "NVIDIA H200, GPU-1, 0000:01:00.0"},
     {"device_1": "NVIDIA H200, GPU-2, 0000:02:00.0"},
     "device_1 'NVIDIA H200, GPU-2, 0000:02:00.0' differs from "
     "'NVIDIA H200, GPU-1, 0000:01:00.0'"),
    ({}, {"device_12": "NVIDIA H200, GPU-1, 0000:01:00.0"}, "device_12 'NVIDIA H200, GPU-1, "),
])
def test_runs_measured_otherwise_are_refused(tmp_path: Path, run_script: RunScript,
                                             first: dict, second: dict, line: str) -> None:
    """Runs of one version on one GPU that measured otherwise (saxpy's L2 cold or warm, --energy
    on or off, a Debug build or a Release one, another --benchmark_min_time, other devices, another
    filter) are no repetitions of one measurement: one line names the key and both values."""
    saxpy = saxpy_run("vec4", 1 << 20, 1000.0, 4800.0)
    a = write_json(tmp_path / "a.json", document(saxpy, **first))
    b = write_json(tmp_path / "b.json", document(saxpy, **second))
    proc = run_script("merge", a, b, "-o", tmp_path / "m.json")
    assert (proc.returncode, proc.stdout) == (2, ""), proc.stderr
    assert (proc.stderr.startswith(f"gpubench-tools merge: {b}: {line}")
            and proc.stderr.count("\n") == 1)
    assert not (tmp_path / "m.json").exists()


def test_saxpy_l2_is_no_setting_of_runs_without_saxpy(tmp_path: Path,
                                                      run_script: RunScript) -> None:
    """--l2 changes saxpy alone: copies and launches of runs with another saxpy_l2 pool."""
    a = write_json(tmp_path / "a.json", one_run(50.0, 4.0, saxpy_l2="cold"))
    b = write_json(tmp_path / "b.json", one_run(51.0, 4.0, saxpy_l2="warm"))
    proc = run_script("merge", a, b, "-o", tmp_path / "m.json")
    assert proc.returncode == 0, proc.stderr


def test_a_long_differing_value_is_named_shortened(tmp_path: Path, run_script: RunScript) -> None:
    a = write_json(tmp_path / "a.json", one_run(50.0, 4.0))
    b = write_json(tmp_path / "b.json", one_run(50.0, 4.0, driver_version="5\n" * 100_000))
    proc = run_script("merge", a, b, "-o", tmp_path / "m.json")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and len(proc.stderr) < 600


def test_an_interrupted_run_is_refused(tmp_path: Path, run_script: RunScript) -> None:
    a = write_json(tmp_path / "a.json", one_run(50.0, 4.0))
    b = write_json(tmp_path / "b.json", one_run(50.0, 4.0, interrupted="SIGTERM"))
    proc = run_script("merge", a, b, "-o", tmp_path / "m.json")
    assert proc.returncode == 2 and "interrupted run (SIGTERM)" in proc.stderr


@pytest.mark.parametrize("args", [["one.json"], ["a.json", "b.json"]])
def test_bad_usage_is_one_line(tmp_path: Path, run_script: RunScript, args: list[str]) -> None:
    proc = run_script("merge", *args, *(["-o", "m.json"] if len(args) == 1 else []))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("gpubench-tools merge: ")


FAKE_GPUBENCH = """#!{python}
import json, sys
sys.path[:0] = [{tests!r}, {scripts!r}]  # the builder reads facts through gpubench_json
from gbench_builder import copy_run, document
out = next(a.split("=", 1)[1] for a in sys.argv if a.startswith("--benchmark_out="))
with open({count!r}, "a") as f:
    f.write(" ".join(sys.argv[1:]) + "\\n")
runs = sum(1 for _ in open({count!r}))
json.dump(document(copy_run("HtoD", "pinned", "async", 1 << 20, 50.0 + runs)), open(out, "w"))
"""


def test_ci_record_runs_separate_processes(tmp_path: Path) -> None:
    count = tmp_path / "calls.txt"
    fake = tmp_path / "gpubench"
    fake.write_text(FAKE_GPUBENCH.format(python=sys.executable, tests=str(SCRIPTS / "tests"),
                                         scripts=str(SCRIPTS), count=str(count)))
    fake.chmod(0o755)
    out = tmp_path / "gpubench.json"
    proc = run_tool(["record", str(fake), str(out), "--sizes=1M"], timeout=120,
                    env={**os.environ, "GPUBENCH_RUNS": "4"})
    assert proc.returncode == 0, proc.stderr
    calls = count.read_text().splitlines()
    assert len(calls) == 4 and all(c.startswith("--sizes=1M --benchmark_out=") for c in calls)
    assert load(out).benchmarks[COPY].repetition_values().tolist() == pytest.approx(
        [51.0, 52.0, 53.0, 54.0]
    )


def test_ci_record_to_a_gz_name_writes_gzip(tmp_path: Path) -> None:
    install(tmp_path / "build", [one_run(50.0 + i, 4.0) for i in range(3)])
    out = tmp_path / "baseline.json.gz"
    proc = run_tool(
        ["record", str(tmp_path / "build" / "gpubench"), str(out)],
        timeout=120,
        env={**os.environ, "GPUBENCH_RUNS": "3"},
    )
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:2] == b"\x1f\x8b"
    assert load(out).benchmarks[COPY].repetition_values().tolist() == [50.0, 51.0, 52.0]


def test_a_run_given_twice_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Twice the same file (by any path) would count one run twice and narrow its spread."""
    first = write_json(tmp_path / "run_1.json", one_run(50.0, 4.0))
    second = write_json(tmp_path / "run_2.json", one_run(51.0, 4.1))
    again = tmp_path / ".." / tmp_path.name / "run_1.json"
    assert merge_main([str(first), str(second), str(again), "-o", str(tmp_path / "out.json")]) == 2
    assert capsys.readouterr().err == (
        f"gpubench-tools merge: {again}: is {first} again: each run counts once\n"
    )
    assert not (tmp_path / "out.json").exists()


# Past its bound, or past the digits bash's arithmetic holds (99999999999999999999 wraps to 340).
@pytest.mark.parametrize(
    ("variable", "value", "rule"),
    [
        *[
            ("GPUBENCH_RUNS", runs, "a whole number from 2 to 1000")
            for runs in [
                "1",
                "five",
                "0",
                "2\n3",
                "1001",
                "99999999999999999999",
                "-5",
                " 5",
                "0x10",
                "3\x1b[2J",
            ]
        ],
        *[
            ("GPUBENCH_RUN_TIMEOUT", seconds, "a whole number of seconds from 1 to 86400")
            for seconds in ["0", "ten", "1.5", "86401", "99999999999999999999", "-1", "60\r"]
        ],
    ],
)
def test_ci_record_refuses_a_bad_setting(
    tmp_path: Path, variable: str, value: str, rule: str
) -> None:
    proc = run_tool(
        ["record", "/bin/false", str(tmp_path / "o.json")],
        timeout=60,
        env={**os.environ, variable: value},
    )
    shown = "".join(c if " " <= c <= "~" else "?" for c in value)  # as bash prints it
    assert proc.returncode == 2
    assert proc.stderr == f"gpubench-tools record: {variable} must be {rule}, not '{shown}'\n"


@pytest.mark.parametrize("out", ["missing/dir/o.json", "."])
def test_ci_record_refuses_an_unwritable_output_before_any_run(tmp_path: Path, out: str) -> None:
    calls = tmp_path / "calls.txt"
    fake = tmp_path / "gpubench"
    fake.write_text(f"#!/bin/sh\necho run >> {calls}\n")
    fake.chmod(0o755)
    proc = run_tool(["record", str(fake), str(tmp_path / out)], timeout=60)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert proc.stderr.endswith("cannot write the output there\n") and not calls.exists()


@pytest.mark.parametrize(
    ("out", "problem"),
    [
        *[
            (name, "names a folder, not a file to write")
            for name in ["o.json/", "folder/", "o.json/.", "folder/..", ".", "/"]
        ],
        ("/dev/full", "cannot write the output there (/dev/full fails every write)"),
        ("full_link", "cannot write the output there (/dev/full fails every write)"),
        ("/dev/stdout", "is the file standard output goes to; name another for the output"),
        ("/dev/stderr", "is the file standard error goes to; name another for the output"),
    ],
)
def test_ci_record_refuses_a_folder_or_dev_full_before_any_run(
    tmp_path: Path, out: str, problem: str
) -> None:
    """A name with a trailing / is no file (written as o.json, the slash dropped, it would land
    elsewhere than named); /dev/full takes no byte. Either is found before the first run."""
    if not Path("/dev/full").exists():
        pytest.skip("needs /dev/full")
    (tmp_path / "folder").mkdir()
    (tmp_path / "full_link").symlink_to("/dev/full")
    calls = tmp_path / "calls.txt"
    fake = tmp_path / "gpubench"
    fake.write_text(f"#!/bin/sh\necho run >> {calls}\n")
    fake.chmod(0o755)
    proc = run_tool(["record", str(fake), out], cwd=tmp_path, timeout=60)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == f"gpubench-tools record: {out}: {problem}\n"
    assert not calls.exists() and not (tmp_path / "o.json").exists()


@pytest.mark.parametrize("binary", ["missing/gpubench", ".", "not_executable"])
def test_ci_record_refuses_what_it_cannot_run_before_any_run(tmp_path: Path, binary: str) -> None:
    (tmp_path / "not_executable").write_text("#!/bin/sh\n")
    proc = run_tool(["record", str(tmp_path / binary), str(tmp_path / "o.json")], timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"gpubench-tools record: {tmp_path / binary}: not an executable file\n"


def test_ci_record_refuses_to_write_over_its_binary(tmp_path: Path) -> None:
    calls = tmp_path / "calls.txt"
    fake = tmp_path / "gpubench"
    fake.write_text(f"#!/bin/sh\necho run >> {calls}\n")
    fake.chmod(0o755)
    before = fake.read_bytes()
    proc = run_tool(["record", str(fake), str(tmp_path / "." / "gpubench")], timeout=60)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "is also an input" in proc.stderr and not calls.exists()
    assert fake.read_bytes() == before


# gpubench-tools record's exit status where the recording fails: apart from gpubench's own statuses.
RECORDING_FAILED = 4


def test_ci_record_stops_on_a_failed_run(tmp_path: Path) -> None:
    proc = run_tool(["record", "/bin/false", str(tmp_path / "o.json")], timeout=60)
    assert proc.returncode == RECORDING_FAILED and not (tmp_path / "o.json").exists()
    assert proc.stderr.splitlines()[-1] == "gpubench-tools record: run 1 of 5: gpubench exited 1"


def record(fake: Path, out: Path, **env: str) -> subprocess.Popen[str]:
    """gpubench-tools record of `fake` into `out`, three runs, started."""
    return subprocess.Popen(
        [*command("record"), str(fake), str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "GPUBENCH_RUNS": "3", **env},
    )


def finish(process: subprocess.Popen[str], build: Path) -> tuple[str, str]:
    """What `process` wrote once it ends; any fake gpubench left running is killed."""
    try:
        return process.communicate(timeout=60)
    finally:
        process.kill()
        for pid in running(build):
            os.kill(pid, signal.SIGKILL)


def test_ci_record_bounds_each_run(tmp_path: Path) -> None:
    fake = install(tmp_path / "build", [one_run(50.0, 4.0)], faults={2: {"sleep": 600}})
    started = time.monotonic()
    process = record(fake, tmp_path / "o.json", GPUBENCH_RUN_TIMEOUT="2")
    _, stderr = finish(process, tmp_path / "build")
    assert time.monotonic() - started < 60
    assert process.returncode == RECORDING_FAILED
    assert stderr.splitlines()[-1] == "gpubench-tools record: run 2 of 3 did not finish in 2 s"
    assert not (tmp_path / "o.json").exists()


@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGINT", "SIGHUP"])
def test_ci_record_stopped_by_a_signal_stops_its_run(tmp_path: Path, signal_name: str) -> None:
    """gpubench is stopped with it rather than left holding the GPU, and the earlier output
    stays as it was."""
    number = signal.Signals[signal_name]
    fake = install(tmp_path / "build", [one_run(50.0, 4.0)], faults={2: {"sleep": 120}})
    out = write_json(tmp_path / "o.json", one_run(49.0, 4.0))
    before = out.read_bytes()
    process = record(fake, out)
    while len(calls(tmp_path / "build")) < 2:
        assert process.poll() is None
        time.sleep(0.1)
    process.send_signal(number)
    stdout, stderr = finish(process, tmp_path / "build")
    assert process.returncode == 128 + number
    assert stderr.splitlines()[-1] == (
        f"gpubench-tools record: stopped by {signal_name} during run 2 of 3; {out} not written"
    )
    assert not running(tmp_path / "build")
    assert out.read_bytes() == before


def test_ci_record_checks_a_dangling_link_without_touching_it(tmp_path: Path) -> None:
    """Checking that the output can be written creates and removes nothing: the link stays a
    link, and a run that fails leaves no file where it points."""
    (tmp_path / "store").mkdir()
    link = tmp_path / "link.json"
    link.symlink_to("store/target.json")
    proc = run_tool(["record", "/bin/false", str(link)], timeout=60, cwd=tmp_path)
    assert proc.returncode == RECORDING_FAILED
    assert link.is_symlink() and not (tmp_path / "store" / "target.json").exists()


def test_ci_record_writes_through_a_link(tmp_path: Path) -> None:
    fake = install(tmp_path / "build", [one_run(50.0, 4.0)])
    (tmp_path / "store").mkdir()
    link = tmp_path / "link.json"
    link.symlink_to("store/target.json")
    proc = run_tool(
        ["record", str(fake), str(link)],
        timeout=60,
        cwd=tmp_path,
        env={**os.environ, "GPUBENCH_RUNS": "2"},
    )
    assert proc.returncode == 0, proc.stderr
    assert (
        link.is_symlink() and load(tmp_path / "store" / "target.json").context["merged_runs"] == 2
    )


def test_an_output_too_large_to_write_leaves_the_earlier_one(tmp_path: Path) -> None:
    """A full disk (here a file size limit of 8 KiB) fails the write: one line naming the
    output, the earlier output as it was, nothing partial under its name or beside it."""
    runs = [write_json(tmp_path / f"run_{i}.json", one_run(50.0 + i, 4.0 + i)) for i in range(40)]
    out = tmp_path / "out" / "merged.json"
    out.parent.mkdir()
    out.write_text("the earlier output\n")

    def limit_file_size() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))

    proc = run_tool(["merge", *map(str, runs), "-o", str(out)], timeout=60, before=limit_file_size)
    assert proc.returncode == 2
    assert proc.stderr == f"gpubench-tools merge: {out}: File too large\n"
    assert out.read_text() == "the earlier output\n"
    assert [p.name for p in out.parent.iterdir()] == ["merged.json"]


@pytest.mark.parametrize("content", [pytest.param(c, id=n) for n, c, _ in bad_results()])
def test_bad_run_file_is_one_line(
    tmp_path: Path, content: object, capsys: pytest.CaptureFixture[str]
) -> None:
    good = write_json(tmp_path / "good.json", one_run(50.0, 4.0))
    bad = write_bad(tmp_path / "bad.json", content)
    status = merge_main([str(good), str(bad), "-o", str(tmp_path / "m.json")])
    out, err = capsys.readouterr()
    assert status == 2 and err.startswith(f"gpubench-tools merge: {bad}: ") and err.count("\n") == 1
    assert not (tmp_path / "m.json").exists()
