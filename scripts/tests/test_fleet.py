"""fleet.py on fleets of 16 GPUs built from real H200 repetitions (fleet_builder.py)."""

import json
from pathlib import Path

import pytest

import fleet_builder
from conftest import RunScript
from fleet import main

SEEDS = range(10)


def flagged_hosts(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, set[str], str]:
    code = main([str(a) for a in args])
    out = capsys.readouterr().out
    hosts = {line.split()[0] for line in out.splitlines() if line.startswith("node")}
    return code, hosts, out


@pytest.mark.parametrize("seed", SEEDS)
def test_real_noise_flags_no_gpu(tmp_path: Path, capsys: pytest.CaptureFixture[str], seed: int) -> None:
    fleet_builder.write_fleet(fleet_builder.build_fleet(16, seed), tmp_path)
    code, hosts, out = flagged_hosts(capsys, tmp_path, "--fail-on-outlier")
    assert (code, hosts) == (0, set()), out
    assert "16 GPUs, 105 benchmarks compared: 0 GPU(s) flagged" in out


@pytest.mark.parametrize("seed", SEEDS)
def test_finds_exactly_the_planted_gpu_and_groups_the_other_driver(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], seed: int) -> None:
    fleet_builder.write_fleet(fleet_builder.example_fleet(seed), tmp_path)
    code, hosts, out = flagged_hosts(capsys, tmp_path, "--fail-on-outlier")
    assert (code, hosts) == (1, {"node05"}), out
    assert "driver 580.159.04, gpubench 0.1.0+342b1c8e6002c394e9d93d26deae178f666c694c: 12 GPUs" in out
    assert "driver 575.57.08, gpubench 0.1.0+342b1c8e6002c394e9d93d26deae178f666c694c: 4 GPUs" in out
    # Every host-to-device and device-to-host path through the narrowed link, none other.
    sweeps = {line.split()[2] for line in out.splitlines() if line.startswith("node05")}
    assert "copy/HtoD/pinned/async" in sweeps and "copy/DtoH/pinned/async" in sweeps
    assert not any(s.startswith(("copy/DtoD", "copy/HtoH", "launch")) for s in sweeps)
    assert "pcie_link Gen5 x4 (max Gen5 x16)" in out


def test_the_other_driver_would_be_flagged_if_mixed_in(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """What the grouping prevents: with one driver, the 1.4x launches stand out."""
    fleet = fleet_builder.build_fleet(16, 0)
    for doc in fleet[12:]:
        fleet_builder.plant_other_driver(doc, driver=fleet[0]["context"]["driver_version"])
    fleet_builder.write_fleet(fleet, tmp_path)
    _, hosts, out = flagged_hosts(capsys, tmp_path)
    assert hosts == {"node12", "node13", "node14", "node15"}, out


def test_margin_and_mads_are_both_required(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """DtoD copies vary by < 1%: 8% slower is many MADs but inside a 15% margin."""
    fleet = fleet_builder.build_fleet(16, 0)
    fleet_builder.scale_bandwidth(fleet[3], lambda name: name.startswith("copy/DtoD/"), 0.92)
    fleet_builder.write_fleet(fleet, tmp_path)
    assert flagged_hosts(capsys, tmp_path)[1] == set()
    assert flagged_hosts(capsys, tmp_path, "--margin=5")[1] == {"node03"}
    # Host-timed pageable copies vary by 4-10%: 8% slower is inside their spread.
    fleet = fleet_builder.build_fleet(16, 0)
    fleet_builder.scale_bandwidth(fleet[3], lambda name: "/pageable/" in name, 0.92)
    fleet_builder.write_fleet(fleet, tmp_path)
    assert flagged_hosts(capsys, tmp_path, "--margin=5")[1] == set()


def test_heatmap_is_drawn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fleet_builder.write_fleet(fleet_builder.example_fleet(0), tmp_path / "fleet")
    assert main([str(tmp_path / "fleet"), "-o", str(tmp_path / "heatmap.png")]) == 0
    assert (tmp_path / "heatmap.png").read_bytes().startswith(b"\x89PNG")


def test_pod_log_and_failed_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A collected pod log (deploy/container/gpubench-pod) and .err files (deploy/slurm)."""
    fleet = fleet_builder.example_fleet(0)
    fleet_builder.write_fleet(fleet[:8], tmp_path / "slurm")
    lines = [json.dumps(doc) for doc in fleet[8:]]
    lines += ["gpubench: no CUDA device: dlopen(\"libcuda.so.1\"): no NVIDIA driver",
              "gpubench-pod: node99 device 0: exit status 1"]
    (tmp_path / "k8s").mkdir()
    (tmp_path / "k8s" / "nodes.jsonl").write_text("\n".join(lines) + "\n")
    (tmp_path / "slurm" / "node98_task3.err").write_text(
        "gpubench: no CUDA device: dlopen(\"libcuda.so.1\"): no NVIDIA driver\nexit status 1\n")
    code, hosts, out = flagged_hosts(capsys, tmp_path / "slurm", tmp_path / "k8s")
    assert (code, hosts) == (0, {"node05"}), out
    assert "16 GPUs in 2 group(s)" in out
    assert "2 run(s) exited non-zero" in out
    assert "node98_task3.err: gpubench: no CUDA device" in out
    assert "nodes.jsonl:10 (node99 device 0): gpubench: no CUDA device" in out


def unusable_cases(tmp_path: Path) -> dict[str, tuple[list[str], str]]:
    fleet = fleet_builder.build_fleet(4, 0)
    good = fleet_builder.write_fleet(fleet, tmp_path / "good")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "a.json").write_text("{\"context\": ")
    (tmp_path / "twice").mkdir()
    for i, path in enumerate(good[:2]):
        (tmp_path / "twice" / f"{i}.json").write_text(good[0].read_text())
    fleet_builder.write_fleet(fleet[:2], tmp_path / "few")
    (tmp_path / "empty").mkdir()
    (tmp_path / "log.jsonl").write_text("{not json\n")
    return {
        "missing": ([str(tmp_path / "nowhere")], "no such file or directory"),
        "broken JSON": ([str(tmp_path / "broken")], "invalid JSON"),
        "same GPU twice": ([str(tmp_path / "twice"), str(tmp_path / "good")], "appears twice"),
        "too few GPUs": ([str(tmp_path / "few")], "nothing to compare"),
        "no result": ([str(tmp_path / "empty")], "no gpubench result"),
        "bad pod log line": ([str(tmp_path / "log.jsonl")], "log.jsonl:1"),
        "bad --k": ([str(tmp_path / "good"), "--k=nan"], "--k"),
        "bad --corroborate": ([str(tmp_path / "good"), "--corroborate=0"], "--corroborate"),
        "bad --headline": ([str(tmp_path / "good"), "--headline=("], "--headline"),
        "heatmap into a directory": ([str(tmp_path / "good"), "-o", str(tmp_path)], "directory"),
        "heatmap into a missing directory": (
            [str(tmp_path / "good"), "-o", str(tmp_path / "no" / "h.png")], "cannot write"),
    }


@pytest.mark.parametrize("case", ["missing", "broken JSON", "same GPU twice", "too few GPUs",
                                  "no result", "bad pod log line", "bad --k", "bad --corroborate",
                                  "bad --headline", "heatmap into a directory",
                                  "heatmap into a missing directory"])
def test_unusable_input_is_one_line_and_exit_2(tmp_path: Path, run_script: RunScript,
                                               case: str) -> None:
    args, expected = unusable_cases(tmp_path)[case]
    done = run_script("fleet.py", *args)
    assert done.returncode == 2, done.stderr
    assert expected in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
