"""gpubench-tools fleet --processes-per-gpu K: each GPU judged by the median of its K latest
results against the loss the median of K healthy processes shows (models/fleet/processes.py, the
limits file's median_loss_pct); a GPU with fewer named, bad input one line."""

import copy
import json
from pathlib import Path

import fleet_builder as fb
import pytest

from gpubench_tools.cli.fleet import findings_of, parse_args
from gpubench_tools.cli.fleet import main as fleet_main
from gpubench_tools.models.fleet.limits import load_limits
from gpubench_tools.models.fleet.processes import median_benchmark
from gpubench_tools.reading.fleet.records import FleetInputError
from gpubench_tools.reading.results import Benchmark

DTOH = fb.starts("copy/DtoH/pinned/async/")
LIMITS = Path(fb.__file__).resolve().parents[2] / "results" / "limits"


def processes(tmp_path: Path, count: int, slowed: int = 0, gpus: int = 8) -> list[str]:
    """`count` runs of one fleet of `gpus` H200s, each GPU a real separate process in each run (a
    directory per run); node03's device-to-host copies 10% slower in the first `slowed` runs."""
    runs = []
    for run in range(count):
        fleet = fb.build_fleet(gpus, seed=run)
        if run < slowed:
            fb.scale_bandwidth(fleet[3], DTOH, 0.9)
        fb.write_fleet(fleet, tmp_path / f"run{run}")
        runs.append(str(tmp_path / f"run{run}"))
    return runs


def flagged(argv: list[str]) -> set[str]:
    findings, _ = findings_of(parse_args(argv))
    return {gpu.host for group in findings.groups for gpu in group.flagged}


def one_line_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    try:
        code = fleet_main(argv)
    except SystemExit as exit_status:
        code = exit_status.code
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, (code, err)
    return err[0]


def test_a_gpu_is_judged_by_the_median_of_its_processes(tmp_path: Path) -> None:
    """One slow process of three is the median's no more; two of three are."""
    runs = processes(tmp_path, 3, slowed=1)
    assert flagged([*runs, "--processes-per-gpu=3"]) == set()
    assert "node03" in flagged([runs[0], "--fail-on-outlier"])  # that process alone
    runs = processes(tmp_path / "two", 3, slowed=2)
    assert flagged([*runs, "--processes-per-gpu=3"]) == {"node03"}


def test_a_gpu_with_fewer_processes_is_named_not_judged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = processes(tmp_path, 3, slowed=3)
    (Path(runs[2]) / f"{fb.file_name(fb.build_fleet(8, 2)[3])}.json").unlink()
    assert fleet_main([*runs, "--processes-per-gpu=3", "--fail-on-outlier"]) == 1
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("too few"))
    assert "node03" in row and "2 of the 3 processes" in row
    assert flagged([*runs, "--processes-per-gpu=3"]) == set()


def test_results_beyond_k_are_duplicates(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    runs = processes(tmp_path, 4)
    assert fleet_main([*runs, "--processes-per-gpu=3"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines()
            if line.startswith("duplicate")]
    assert len(rows) == 8 and all("beyond the 3 latest processes" in row for row in rows)


def test_bad_processes_per_gpu_is_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = processes(tmp_path, 2, gpus=4)
    assert "--processes-per-gpu=0: must be a whole number from 1" in one_line_exit_2(
        [*runs, "--processes-per-gpu=0"], capsys)
    assert "no GPU has 3 results (the most: 2)" in one_line_exit_2(
        [*runs, "--processes-per-gpu=3"], capsys)
    # Another build among one GPU's processes.
    path = Path(runs[1]) / f"{fb.file_name(fb.build_fleet(4, 1)[2])}.json"
    doc = json.loads(path.read_text())
    doc["context"]["gpubench_version"] = "0.2.0+0123456789ab"
    path.write_text(json.dumps(doc))
    line = one_line_exit_2([*runs, "--processes-per-gpu=2"], capsys)
    assert "the processes of GPU" in line and "differ in version" in line, line


def test_a_limits_file_without_losses_of_k_processes_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = processes(tmp_path, 2, gpus=4)
    doc = json.loads((LIMITS / "h200.json").read_text())
    for entry in doc["process_losses"].values():
        entry.pop("median_loss_pct")
    (tmp_path / "h200.json").write_text(json.dumps(doc))
    line = one_line_exit_2([*runs, "--processes-per-gpu=2", "--limits",
                            str(tmp_path / "h200.json")], capsys)
    assert "holds process losses of single processes only" in line, line


def test_a_bad_median_loss_is_refused(tmp_path: Path) -> None:
    doc = json.loads((LIMITS / "h200.json").read_text())
    path = tmp_path / "h200.json"
    for bad, said in ((100, "from 0 to below 100"), ({}, "from 0 to below 100"),
                      ("x", "not an object")):
        entry = copy.deepcopy(doc)
        entry["process_losses"] = {"copy/X/1": {"loss_pct": 1, "median_loss_pct": (
            {"3": bad} if said != "not an object" else bad)}}
        path.write_text(json.dumps(entry))
        with pytest.raises(FleetInputError, match=said):
            load_limits(path)
    entry["process_losses"] = {"copy/X/1": {"loss_pct": 1, "median_loss_pct": {"1": 2}}}
    path.write_text(json.dumps(entry))
    with pytest.raises(FleetInputError, match="not a number of processes from 2"):
        load_limits(path)


def test_a_median_benchmark_is_the_median_of_each_figure() -> None:
    def bench(gbps: float, noise: float) -> Benchmark:
        values = {"bytes_per_second": gbps, "noise_pct": noise}
        return Benchmark("copy/X/1", values, [values], "single run")
    median = median_benchmark([bench(10, 1), bench(30, 3), bench(20, 9)])
    assert median.values == {"bytes_per_second": 20, "noise_pct": 3}
    assert median.noise_pct == 3 and len(median.repetitions) == 3
