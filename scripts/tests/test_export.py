import json
from pathlib import Path

import pytest
from conftest import RunScript
from gbench_builder import copy_run, document, launch_run, module_run, saxpy_run, write_json


@pytest.fixture
def result(tmp_path: Path) -> Path:
    entries = (copy_run("HtoD", "pinned", "async", 1024, [20.0, 25.0, 30.0])
               + launch_run("driver", "submit", 256, 2.5) + module_run("ptx_jit", 800.0)
               + saxpy_run("vec4", 1 << 20, 3000.0, peak_gbps=4000.0))
    return write_json(tmp_path / "gpubench.json", document(entries))


def test_github_bigger_is_better(result: Path, run_script: RunScript) -> None:
    proc = run_script("export.py", result, "--format", "github", "--direction", "bigger")
    assert proc.returncode == 0, proc.stderr
    entries = {e["name"]: e for e in json.loads(proc.stdout)}
    assert set(entries) == {"copy/HtoD/pinned/async/1024", "saxpy/vec4/1048576"}
    assert entries["copy/HtoD/pinned/async/1024"]["value"] == pytest.approx(25.0)
    assert {e["unit"] for e in entries.values()} == {"GB/s"}
    assert "NVIDIA H200" in entries["saxpy/vec4/1048576"]["extra"]


def test_github_smaller_is_better_to_file(result: Path, tmp_path: Path,
                                          run_script: RunScript) -> None:
    out = tmp_path / "smaller.json"
    proc = run_script("export.py", result, "--format=github", "--direction=smaller", "-o", out)
    assert proc.returncode == 0 and proc.stdout == ""
    entries = {e["name"]: e for e in json.loads(out.read_text())}
    assert entries == {
        "launch/driver/submit/params:256": {**entries["launch/driver/submit/params:256"],
                                            "unit": "µs", "value": pytest.approx(2.5)},
        "launch/module/ptx_jit": {**entries["launch/module/ptx_jit"],
                                  "unit": "µs", "value": pytest.approx(800.0)},
    }


def test_bencher(result: Path, run_script: RunScript) -> None:
    proc = run_script("export.py", result, "--format", "bencher")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["copy/HtoD/pinned/async/1024"] == {"throughput-gbps": {"value": pytest.approx(25.0)}}
    assert doc["saxpy/vec4/1048576"] == {"throughput-gbps": {"value": pytest.approx(3000.0)}}
    assert doc["launch/driver/submit/params:256"] == {"latency-us": {"value": pytest.approx(2.5)}}
    assert doc["launch/module/ptx_jit"] == {"latency-us": {"value": pytest.approx(800.0)}}


@pytest.mark.parametrize("args", [["--format", "github"], ["--format", "bencher", "--direction",
                                                           "bigger"]])
def test_direction_only_with_github(result: Path, run_script: RunScript, args: list[str]) -> None:
    assert run_script("export.py", result, *args).returncode == 2


def test_bad_input(tmp_path: Path, run_script: RunScript) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{]")
    proc = run_script("export.py", bad, "--format", "bencher")
    assert proc.returncode == 2
    assert proc.stderr.startswith("export.py: ") and proc.stderr.count("\n") == 1
