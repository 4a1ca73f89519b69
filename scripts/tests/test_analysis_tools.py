"""The analyses of tools/analysis/ that read files a user names: a file they cannot read is one
line naming it and exit 2, and committed processes give their table."""

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SCRIPTS

ANALYSIS = SCRIPTS.parent / "tools" / "analysis"
DUET = SCRIPTS.parent / "results" / "h100" / "duet_reference"
TOOLS = ["duet_reference.py", "process_medians.py", "timed_share.py"]
PROCESSES = SCRIPTS.parent / "results" / "h100" / "processes"


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


@pytest.mark.parametrize("tool", TOOLS)
def test_output_that_cannot_be_written_is_one_line(tool: str) -> None:
    files = sorted(DUET.glob("paired_*.json.gz"))
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, str(ANALYSIS / tool), *map(str, files)],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith(f"{tool}: stdout: ")
