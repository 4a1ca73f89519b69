from pathlib import Path

import numpy as np
import pytest
from conftest import RunScript
from gbench_builder import document, full_suite, launch_run, write_json

from latency_bandwidth import fit_latency_bandwidth

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
FIGURES = ("copy_bandwidth.png", "launch_cost.png", "saxpy_bandwidth.png")


def test_fit_recovers_t0_and_bandwidth() -> None:
    sizes = 2.0 ** np.arange(8, 30)
    seconds = 8e-6 + sizes / 50e9
    noisy = seconds * np.random.default_rng(0).lognormal(0.0, 0.02, sizes.size)
    for times, tolerance in ((seconds, 1e-9), (noisy, 0.05)):
        fit = fit_latency_bandwidth(sizes, times)
        assert fit.t0_s == pytest.approx(8e-6, rel=tolerance)
        assert fit.bandwidth_bytes_per_s == pytest.approx(50e9, rel=tolerance)
        assert fit.half_bandwidth_bytes == pytest.approx(8e-6 * 50e9, rel=2 * tolerance)


def test_fit_needs_two_sizes() -> None:
    assert fit_latency_bandwidth(np.array([1024.0, 1024.0]), np.array([1e-5, 1.1e-5])) is None


def test_plot_two_gpus(tmp_path: Path, run_script: RunScript) -> None:
    h200 = write_json(tmp_path / "h200.json", document(full_suite(8.0, 50.0)))
    h100 = write_json(tmp_path / "h100.json",
                      document(full_suite(10.0, 25.0), gpu_name="NVIDIA H100", driver_version="550"))
    proc = run_script("plot.py", h200, h100, "-o", tmp_path / "figs")
    assert proc.returncode == 0, proc.stderr
    for figure in FIGURES:
        data = (tmp_path / "figs" / figure).read_bytes()
        assert data.startswith(PNG_SIGNATURE) and len(data) > 10_000
    row = next(line for line in proc.stdout.splitlines()
               if line.startswith("HtoD/pinned/async [NVIDIA H100, driver 550]"))
    assert row.split()[-3:] == ["10.00", "25.0", "250000"]
    assert "8.00" in proc.stdout and "50.0" in proc.stdout


def test_plot_skips_absent_family(tmp_path: Path, run_script: RunScript) -> None:
    only_launch = write_json(tmp_path / "r.json", document(launch_run("runtime", "submit", 0, 2.0)))
    proc = run_script("plot.py", only_launch, "-o", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "skipping copy_bandwidth.png" in proc.stderr
    assert "skipping saxpy_bandwidth.png" in proc.stderr
    assert (tmp_path / "launch_cost.png").read_bytes().startswith(PNG_SIGNATURE)
    assert not (tmp_path / "copy_bandwidth.png").exists()


def test_plot_bad_input(tmp_path: Path, run_script: RunScript) -> None:
    proc = run_script("plot.py", tmp_path / "missing.json", "-o", tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith("plot.py: ") and proc.stderr.count("\n") == 1
