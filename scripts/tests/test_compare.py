import json
from pathlib import Path
from typing import Any

import pytest
from conftest import RunScript
from gbench_builder import copy_run, document, launch_run, write_json

SIZE = 1 << 20
COPY = f"copy/HtoD/pinned/async/{SIZE}"
LAUNCH = "launch/runtime/submit/params:0"


def suite(gbps: Any = 50.0, us: Any = 2.0, **kw: Any) -> list[dict]:
    return copy_run("HtoD", "pinned", "async", SIZE, gbps, **kw) + launch_run(
        "runtime", "submit", 0, us, **kw)


def compare(tmp_path: Path, run_script: RunScript, base: list[dict], cont: list[dict],
            *args: object, cont_context: dict | None = None):
    b = write_json(tmp_path / "base.json", document(base))
    c = write_json(tmp_path / "cont.json", document(cont, **(cont_context or {})))
    return run_script("compare.py", b, c, "--markdown", *args)


def cells(markdown: str, name: str) -> list[str]:
    line = next(line for line in markdown.splitlines() if line.startswith(f"| {name} |"))
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_identical_inputs_pass(tmp_path: Path, run_script: RunScript) -> None:
    proc = compare(tmp_path, run_script, suite(), suite())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert cells(proc.stdout, COPY)[4] == "+0.00"
    assert "GPU/driver comparison" not in proc.stdout


@pytest.mark.parametrize(("contender", "name"), [
    (suite(gbps=40.0), COPY),  # bandwidth dropped 20%
    (suite(us=2.4), LAUNCH),  # launch time rose 20%
])
def test_flags_planted_regression(tmp_path: Path, run_script: RunScript, contender: list[dict],
                                  name: str) -> None:
    proc = compare(tmp_path, run_script, suite(), contender)
    assert proc.returncode == 1
    row = cells(proc.stdout, name)
    assert row[4] == "-20.00" and row[6] == "REGRESSION"


def test_improvements_pass(tmp_path: Path, run_script: RunScript) -> None:
    proc = compare(tmp_path, run_script, suite(), suite(gbps=60.0, us=1.6))
    assert proc.returncode == 0
    assert cells(proc.stdout, COPY)[4] == "+20.00" and cells(proc.stdout, LAUNCH)[4] == "+20.00"


@pytest.mark.parametrize(("threshold", "status"), [(5, 0), (2, 1)])
def test_threshold(tmp_path: Path, run_script: RunScript, threshold: float, status: int) -> None:
    proc = compare(tmp_path, run_script, suite(), suite(gbps=50.0 * 0.97),
                   f"--threshold={threshold}")
    assert proc.returncode == status


def test_significant_regression_with_repetitions(tmp_path: Path, run_script: RunScript) -> None:
    base = [10.0, 10.1, 9.9, 10.05, 9.95]
    proc = compare(tmp_path, run_script, suite(gbps=base), suite(gbps=[0.8 * g for g in base]))
    assert proc.returncode == 1
    assert float(cells(proc.stdout, COPY)[5]) == pytest.approx(2 / 252, rel=1e-3)


def test_noisy_change_is_not_significant(tmp_path: Path, run_script: RunScript) -> None:
    proc = compare(tmp_path, run_script, suite(gbps=[10.0, 12.0, 8.0, 11.0, 9.0]),
                   suite(gbps=[8.5, 12.0, 7.0, 11.0, 8.0]))
    assert proc.returncode == 0, proc.stdout
    row = cells(proc.stdout, COPY)
    assert row[4] == "-15.00" and float(row[5]) > 0.05 and row[6] == ""


def test_too_few_repetitions_noted(tmp_path: Path, run_script: RunScript) -> None:
    proc = compare(tmp_path, run_script, suite(gbps=[10.0, 10.1]), suite(gbps=[5.0, 5.1]))
    assert proc.returncode == 0
    assert "too few repetitions" in proc.stdout


def test_aggregates_only_footnote(tmp_path: Path, run_script: RunScript) -> None:
    reps = [50.0, 50.5, 49.5]
    proc = compare(tmp_path, run_script, suite(gbps=reps, aggregates_only=True),
                   suite(gbps=[0.5 * g for g in reps], aggregates_only=True))
    assert proc.returncode == 1
    assert cells(proc.stdout, COPY)[5] == ""
    assert "--benchmark_report_aggregates_only=true" in proc.stdout


def test_different_gpu_header(tmp_path: Path, run_script: RunScript) -> None:
    proc = compare(tmp_path, run_script, suite(), suite(),
                   cont_context={"gpu_name": "NVIDIA H100"})
    assert proc.returncode == 0
    assert "GPU/driver comparison, not a regression check" in proc.stdout


def test_plain_text_table(tmp_path: Path, run_script: RunScript) -> None:
    b = write_json(tmp_path / "b.json", document(suite()))
    proc = run_script("compare.py", b, b)
    assert proc.returncode == 0
    assert any(line.split()[:2] == [COPY, "50"] for line in proc.stdout.splitlines())


@pytest.mark.parametrize("content", [
    None,  # missing file
    "",
    "not json at all",
    json.dumps({"context": {"library_build_type": "release"}, "benchmarks": []}),
    json.dumps(document(launch_run("driver", "submit", 0, 1.0))),  # nothing in common
])
def test_rejects_bad_input(tmp_path: Path, run_script: RunScript, content: str | None) -> None:
    good = write_json(tmp_path / "good.json", document(suite()))
    bad = tmp_path / "bad.json"
    if content is not None:
        bad.write_text(content)
    proc = run_script("compare.py", good, bad)
    assert proc.returncode == 2
    assert proc.stderr.startswith("compare.py: ") and proc.stderr.count("\n") == 1
    assert proc.stdout == ""
