"""The analyses of tools/analysis/ that read files a user names: a file they cannot read is one
line naming it and exit 2, and committed processes give their table."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import SCRIPTS

ANALYSIS = SCRIPTS.parent / "tools" / "analysis"
DUET = SCRIPTS.parent / "results" / "h100" / "duet_reference"
TOOLS = ["duet_reference.py", "process_medians.py", "timed_share.py", "process_spread.py"]
PROCESSES = SCRIPTS.parent / "results" / "h100" / "processes"
SAME_CARD = SCRIPTS.parent / "results" / "h200" / "verdicts" / "gate_aa" / "same_card"
H200_POWER = SCRIPTS.parent / "results" / "h200" / "gate_power"


def run(tool: str, *args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ANALYSIS / tool), *map(str, args)],
                          capture_output=True, text=True, timeout=60)


def unreadable(kind: str, tmp_path: Path) -> Path:
    path = tmp_path / f"{kind}.json"
    if kind == "invalid":
        path.write_text("{")
    elif kind == "not_gpubench":
        path.write_text('{"context": {}, "benchmarks": []}')
    elif kind == "directory":
        path.mkdir()
    return path  # "missing": never written


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize("kind", ["missing", "invalid", "not_gpubench", "directory"])
def test_a_file_that_cannot_be_read_is_one_line(tool: str, kind: str, tmp_path: Path) -> None:
    bad = unreadable(kind, tmp_path)
    good = sorted(DUET.glob("paired_*.json.gz"))[:2]
    proc = run(tool, *good, bad)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith(f"{tool}: {bad}: ")


def test_a_bad_filter_is_one_line() -> None:
    proc = run("process_medians.py", *sorted(DUET.glob("paired_*.json.gz"))[:3], "--filter", "(")
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("process_medians.py: --filter '(': ")


def test_committed_processes_give_their_tables() -> None:
    files = sorted(DUET.glob("paired_*.json.gz"))
    proc = run("duet_reference.py", *files)
    assert proc.returncode == 0 and proc.stdout == (DUET / "duet.txt").read_text()
    proc = run("process_medians.py", *files[:5], "--filter", "^launch/paired/submit/params:0$",
               "--counter", "driver_us")
    assert proc.returncode == 0, proc.stderr
    assert "| `launch/paired/submit/params:0` | driver_us |" in proc.stdout
    proc = run("timed_share.py", *(PROCESSES / f"process_{n}.json.gz" for n in range(1, 22)))
    assert proc.returncode == 0 and proc.stdout == (PROCESSES / "timed_share.txt").read_text()
    proc = run("process_spread.py", SAME_CARD / "aa25.json.gz")
    assert proc.returncode == 0
    assert proc.stdout == (H200_POWER / "spread_7b806b78.txt").read_text()


def test_one_run_has_no_spread() -> None:
    proc = run("process_spread.py", DUET / "paired_1.json.gz")
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1
    assert "holds one run" in proc.stderr


def test_the_spread_limit_holds_for_medians_of_normal_runs() -> None:
    """At the threshold and change process_spread.py's model finds, medians of simulated normal
    runs (15 baseline, 5 candidate, 5 confirming) pass both stages in about 1 of 10,000 trials
    unchanged and in about 95% with the change: the model's sqrt(pi/2) holds at five runs."""
    spec = importlib.util.spec_from_file_location("process_spread",
                                                  ANALYSIS / "process_spread.py")
    model = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(model)
    threshold, change = model.gate_model(15, 5, 5)
    draw = np.random.default_rng(1)
    trials = 200_000

    def medians(runs: int) -> np.ndarray:
        return np.median(draw.standard_normal((trials, runs)), axis=1)

    base = medians(15)
    first, second = medians(5) - base, medians(5) - base
    assert np.mean((first > threshold) & (second > threshold)) < 3e-4
    assert 0.93 < np.mean((first + change > threshold) & (second + change > threshold)) < 0.98


@pytest.mark.parametrize("tool", TOOLS)
def test_output_that_cannot_be_written_is_one_line(tool: str) -> None:
    files = sorted(DUET.glob("paired_*.json.gz"))
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, str(ANALYSIS / tool), *map(str, files)],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith(f"{tool}: stdout: ")


def probe_output(path: Path, high_first: bool) -> Path:
    """A context_mean_probe output of eight contexts, each at one of two levels 3% apart, in
    turn: the first context's level is the process's draw, every two contexts hold both."""
    levels = [1.03, 1.0] if high_first else [1.0, 1.03]
    values = " ".join(f"{4.3 * levels[k % 2]:.4f}" for k in range(8))
    path.write_text(f"saxpy_flushed {values}\n")
    return path


def test_context_means_take_out_a_level_drawn_per_context(tmp_path: Path) -> None:
    outputs = [probe_output(tmp_path / f"process_{n}.txt", n % 3 == 0) for n in range(9)]
    proc = run("context_mean.py", *outputs)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[1] == (
        "  saxpy_flushed: first context 0.00 (4.3), mean of 2 0.00 (4.364), mean of 4 0.00 "
        "(4.364), mean of 8 0.00 (4.364)")
    outputs += [probe_output(tmp_path / f"process_{n}.txt", True) for n in range(9, 12)]
    # Six processes of each level: the first context spreads by half their distance (1.48% in
    # log) times 1.4826; the mean of two is the same in every process.
    assert run("context_mean.py", *outputs).stdout.splitlines()[1] == (
        "  saxpy_flushed: first context 2.19 (4.364), mean of 2 0.00 (4.364), mean of 4 0.00 "
        "(4.364), mean of 8 0.00 (4.364)")


@pytest.mark.parametrize("content", ["{", "saxpy 1.0 nan", "saxpy", "", "saxpy 1.0 -2"])
def test_a_probe_output_that_is_none_is_one_line(content: str, tmp_path: Path) -> None:
    good = probe_output(tmp_path / "good.txt", True)
    (bad := tmp_path / "bad.txt").write_text(content)
    proc = run("context_mean.py", good, bad)
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith(f"context_mean.py: {bad}")


def duet_output(path: Path, host: float) -> Path:
    """A duet_kinds_probe output of a process whose host runs `host` times slower: the submit
    and the system calls move with it, the spin does not."""
    syscall, spin, submit = 6.0 * host, 40.0, 150.0 * host
    path.write_text("figure alone_us over_host_syscall over_host_spin\n"
                    f"submit {submit:.4f} {submit / syscall:.5f} {submit / spin:.5f}\n")
    return path


def test_probe_columns_show_what_a_reference_steadies(tmp_path: Path) -> None:
    outputs = [duet_output(tmp_path / f"process_{n}.txt", host)
               for n, host in enumerate([0.9, 1.0, 1.1, 1.0, 0.95])]
    proc = run("probe_columns.py", *outputs)
    assert proc.returncode == 0, proc.stderr
    cells = proc.stdout.splitlines()[2].split()
    assert cells[0] == "submit" and cells[3:5] == ["0.00", "(25)"]
    assert float(cells[1]) > 5 and float(cells[5]) > 5  # alone and over the spin: 7.4%


@pytest.mark.parametrize("content", ["", "submit 1 2\n", "figure a b\nsubmit 1\n",
                                     "figure a\nsubmit nan\n", "figure a b\nsubmit 1 -2\n",
                                     "figure alone_us\nsubmit 1\n"])
def test_a_probe_table_that_is_none_is_one_line(content: str, tmp_path: Path) -> None:
    good = duet_output(tmp_path / "good.txt", 1.0)
    (bad := tmp_path / "bad.txt").write_text(content)
    proc = run("probe_columns.py", good, bad)
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith(f"probe_columns.py: {bad}")


PROCESS_TIME = SCRIPTS.parent / "results" / "h100" / "process_time"


@pytest.mark.parametrize("stamped, process, table", [
    ("stamped.txt", "process.json.gz", "process_time.txt"),
    ("four_families_stamped.txt", "four_families.json.gz", "four_families_time.txt"),
])
def test_a_stamped_process_gives_its_table(stamped: str, process: str, table: str) -> None:
    proc = run("process_time.py", PROCESS_TIME / stamped, PROCESS_TIME / process)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (PROCESS_TIME / table).read_text()


@pytest.mark.parametrize("lines", [
    ["no seconds here"],
    ["    1.000 -----", "    nan latency/chase/device/536870912/manual_time 1 us"],
    ["    2.000 -----", "    1.000 latency/chase/device/536870912/manual_time 1 us"],
    ["    1.000 -----", "    2.000 no/such/benchmark 1 us"],
    [],
    ["    1.000 -----", "    1.000 latency/chase/device/536870912/manual_time 1 us"],
], ids=["no_seconds", "not_a_number", "going_back", "no_benchmark", "empty", "no_time_passes"])
def test_a_stamped_console_it_cannot_read_is_one_line(lines: list[str], tmp_path: Path) -> None:
    stamped = tmp_path / "stamped.txt"
    stamped.write_text("".join(line + "\n" for line in lines))
    proc = run("process_time.py", stamped, PROCESS_TIME / "process.json.gz")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith(f"process_time.py: {stamped}: ")


@pytest.mark.parametrize("kind", ["missing", "invalid", "not_gpubench", "directory"])
def test_a_process_time_file_that_cannot_be_read_is_one_line(kind: str, tmp_path: Path) -> None:
    bad = unreadable(kind, tmp_path)
    for args in ((PROCESS_TIME / "stamped.txt", bad), (bad, PROCESS_TIME / "process.json.gz")):
        proc = run("process_time.py", *args)
        assert proc.returncode == 2 and proc.stdout == "", proc.stderr
        assert proc.stderr.count("\n") == 1 and proc.stderr.startswith(f"process_time.py: {bad}: ")
