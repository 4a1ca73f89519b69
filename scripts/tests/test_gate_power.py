"""tools/gate_power.py on a small generated recording: what each planted slowdown gives, counted
by family, timing and kind; the A/A verdicts not SAME; a slowdown planted into a loaded result
judged as one planted into the file; and its one-line refusals."""
import csv
import importlib.util
import random
import subprocess
import sys
from pathlib import Path

from conftest import SCRIPTS
from gbench_builder import (
    document,
    launch_run,
    recorded,
    run_entries,
    saxpy_run,
    scaled,
    with_repetitions,
    write_json,
)
from gate_splits import gate_rows, result, runs_in

from gpubench_tools.cli.compare import parse_args, rules_from

TOOL = SCRIPTS.parent / "tools" / "gate_power.py"
RUNS = 16  # 15 baseline runs do not fit beside 5 + 5: the baseline takes 6
PLANTS = "1,5,10,50"


def gate_power_module():
    spec = importlib.util.spec_from_file_location("gate_power", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def jittered(value: float) -> list[float]:
    """RUNS runs of `value`, 0.2% apart at most: every planted change from 5% stands clear."""
    return [value * (1 + 0.001 * ((7 * i) % 5 - 2)) for i in range(RUNS)]


def recording() -> dict:
    gpu, host = {"host_timed": 0, "noise_pct": 0.1}, {"host_timed": 1, "noise_pct": 0.1}
    entries = (
        saxpy_run("vec4", 1 << 24, jittered(3000.0), peak_gbps=3900.0, counters=gpu)
        + launch_run("driver", "submit", 0, jittered(2.0), counters=host)
        + launch_run("gpu_gap", "driver", 0, jittered(1.5), counters=gpu)
        # A spread past 100% is no measurement: UNRESOLVED in every trial, never caught.
        + run_entries("launch/module/ptx_jit/manual_time",
                      [{"real_time": v} for v in jittered(9000.0)],
                      counters={"host_timed": 1, "noise_pct": 150.0})
    )
    return recorded(document(entries))


def tool(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(TOOL), *map(str, args)], capture_output=True,
                          text=True, timeout=60)


def test_planted_slowdowns_are_counted_by_kind(tmp_path: Path) -> None:
    doc = write_json(tmp_path / "runs.json", recording())
    proc = tool(doc, "--trials", 2, "--plants", PLANTS, "--csv", tmp_path / "power.csv")
    assert proc.returncode == 0 and proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert lines[1].startswith("2 trials (seed 1) of 6 baseline runs (15 do not fit beside "
                               "5 + 5 in 16 runs: the largest baseline they allow) against 5 "
                               "candidate runs, each change confirmed on 5 more runs")
    assert lines[2].startswith("A/A: the gate passed 0 of 2 trials; 2 verdicts not SAME")
    assert "  launch/module/ptx_jit: not SAME in 2 of 2" in lines
    with (tmp_path / "power.csv").open() as rows:
        groups = {(g["family"], g["timing"], g["kind"]): g for g in csv.DictReader(rows)}

    def counts(kind: tuple[str, str, str], column: str) -> dict[str, int]:
        return {p: int(groups[kind][f"{column}_{p}pct"]) for p in PLANTS.split(",")}
    # GPU-timed: a 1% slowdown is below the 3% floor, 5% and more are caught in every trial.
    for kind in (("saxpy", "GPU-timed", "from 2^20 elements"), ("launch", "GPU-timed", "GPU gap")):
        assert counts(kind, "caught") == {"1": 0, "5": 2, "10": 2, "50": 2}
        assert counts(kind, "planted") == {"1": 2, "5": 2, "10": 2, "50": 2}
        assert groups[kind]["aa_not_same"] == "0" and groups[kind]["aa_judged"] == "2"
    # Host-timed: the 25% floor lets 10% through and catches 50%.
    assert counts(("launch", "host-timed", "submit"), "caught") == {"1": 0, "5": 0, "10": 0,
                                                                   "50": 2}
    unresolved = ("launch", "host-timed", "module loads")
    assert groups[unresolved]["aa_not_same"] == "2"
    assert sum(counts(unresolved, "caught").values()) == 0
    table = [line for line in lines if line.startswith("| ")]
    assert table[0] == ("| family | timing | kind | benchmarks | A/A not SAME | 1% caught | "
                        "5% caught | 10% caught | 50% caught |")
    assert "| all | GPU-timed | all | 2 | 0 of 4 | 0.0% | 100.0% | 100.0% | 100.0% |" in table
    assert "| all | host-timed | all | 2 | 2 of 4 | 0.0% | 0.0% | 0.0% | 50.0% |" in table
    # Deterministic given the seed.
    assert tool(doc, "--trials", 2, "--plants", PLANTS).stdout == proc.stdout
    # A rule of compare's: with an 8% host floor, the same splits catch the host-timed 10%.
    ruled = tool(doc, "--trials", 2, "--plants", PLANTS, "--rule=--host-threshold=8")
    assert ruled.returncode == 0 and ruled.stderr == ""
    assert ruled.stdout.splitlines()[1].endswith("compare's rules with --host-threshold=8")
    assert "| launch | host-timed | submit | 1 | 0 of 2 | 0.0% | 0.0% | 100.0% | 100.0% |" in (
        ruled.stdout.splitlines())


def test_a_slowdown_planted_in_a_loaded_result_is_judged_as_one_planted_in_the_file() -> None:
    gate_power, doc = gate_power_module(), recording()
    draw = random.Random(3)
    order = list(range(runs_in(doc)))
    draw.shuffle(order)
    base = result(with_repetitions(doc, set(order[:8]).__contains__), "base")
    new_doc = with_repetitions(doc, set(order[8:13]).__contains__)
    rules = rules_from(parse_args(["b.json", "n.json"]))
    for factor in (1.04, 1.3):
        in_file = new_doc
        for run in {e["run_name"] for e in new_doc["benchmarks"]}:
            in_file = scaled(in_file, run, factor)
        from_file = gate_rows(base, result(in_file, "n"), None, rules)
        loaded = gate_power.slower(result(new_doc, "n"), factor)
        in_result = gate_rows(base, loaded, None, rules)
        assert from_file.keys() == in_result.keys()
        for name, row in from_file.items():
            assert row.verdict == in_result[name].verdict
            assert abs(row.ratio - in_result[name].ratio) < 1e-12
            assert abs(row.resolution_pct - in_result[name].resolution_pct) < 1e-9


def test_bad_usage_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "none.json"
    proc = tool(missing)
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith(f"gate_power.py: {missing}: ")
    few = write_json(tmp_path / "few.json", with_repetitions(recording(), lambda i: i < 11))
    proc = tool(few)
    assert proc.returncode == 2 and proc.stderr == (
        f"gate_power.py: {few}: 11 runs hold no baseline of 2 or more runs beside 5 + 5\n")
    proc = tool(few, "--plants", "5,x")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "--plants" in proc.stderr
    proc = tool(few, "--rule=--host-threshold=x")
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1
    assert "--host-threshold" in proc.stderr
    assert tool("--help").returncode == 0


def test_a_stdout_that_takes_no_more_is_one_line(tmp_path: Path) -> None:
    recorded_runs = write_json(tmp_path / "runs.json", recording())
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, str(TOOL), str(recorded_runs), "--trials", "1"],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("gate_power.py: stdout: ")
