"""compare_latency.py: the committed comparisons are what it prints from the committed files,
a peer chase meets the nvbandwidth cell of the GPU that chases, and gpu-latency's lines that
are no measurement are left out."""
import json
import subprocess
import sys
from pathlib import Path

from test_compare_bandwidth import gpubench_file, nvbandwidth_file

TOOL = Path(__file__).with_name("compare_latency.py")
RESULTS = Path(__file__).resolve().parents[2] / "results"


def run(*args):
    return subprocess.run([sys.executable, str(TOOL), *map(str, args)], capture_output=True,
                          text=True, timeout=60)


def test_the_committed_comparisons_are_what_it_prints_from_the_committed_files():
    h200 = RESULTS / "h200" / "latency"
    proc = run(h200 / "latency.json", "--gpu-latency", h200 / "peers" / "gpu_latency_coarse.txt",
               "--nvbandwidth", h200 / "peers" / "nvbandwidth_host_latency.json")
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout == (h200 / "latency_vs_peers.txt").read_text()
    x2 = RESULTS / "h200x2" / "latency"
    proc = run(x2 / "chase_peer.json", "--nvbandwidth", x2 / "peers" /
               "nvbandwidth_d2d_latency.json")
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout == (x2 / "latency_vs_peers.txt").read_text()


def chase_file(tmp_path, ns_by_name):
    path = gpubench_file(tmp_path, {})
    doc = json.loads(path.read_text())
    for name, ns in ns_by_name.items():
        for index, spread in enumerate((-1.0, 0.0, 1.0)):
            doc["benchmarks"].append({
                "name": f"{name}/manual_time", "run_name": f"{name}/manual_time",
                "run_type": "iteration", "repetitions": 3, "repetition_index": index,
                "threads": 1, "iterations": 10, "time_unit": "us", "real_time": 100.0,
                "cpu_time": 1.0, "ns_per_load": ns + spread})
    path.write_text(json.dumps(doc))
    return path


def test_a_peer_chase_meets_the_cell_of_the_gpu_that_chases(tmp_path):
    # peer/<s>to<d>: s's memory chased by d; nvbandwidth's row is the GPU that chases
    ours = chase_file(tmp_path, {"latency/chase/peer/0to1/2097152": 900.0,
                                 "latency/chase/peer/1to0/2097152": 700.0,
                                 "latency/chase/host_pinned/2097152/device:1": 1300.0})
    theirs = nvbandwidth_file(tmp_path, {"device_to_device_latency_sm": [["N/A", 700.0],
                                                                         [900.0, "N/A"]],
                                         "host_device_latency_sm": [[1000.0, 1250.0]]})
    proc = run(ours, "--nvbandwidth", theirs)
    assert (proc.returncode, proc.stderr) == (0, "")
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["latency/chase/host_pinned/2097152/device:1", "gpubench",
                                "1300.0", "nvbandwidth", "1250.0", "+4.0%", "within", "10%"]
    assert lines[1].split()[2:6] == ["900.0", "nvbandwidth", "900.0", "+0.0%"]
    assert lines[2].split()[2:6] == ["700.0", "nvbandwidth", "700.0", "+0.0%"]


def test_gpu_latency_lines_that_are_no_measurement_are_left_out(tmp_path):
    ours = chase_file(tmp_path, {"latency/chase/device/16384": 16.0,
                                 "latency/chase/device/32768": 16.0})
    text = tmp_path / "gpu_latency.txt"
    text.write_text("clock: 1980 1980\n"
                    "  0  1980  16  17.2  34.0\n"      # no loads
                    "  1000000  1980  -16  17.2  34.0\n"  # no size
                    "  1000000  1980  16  nan  34.0\n"
                    "  1000000  1980  32  20.0  34.0\n")
    proc = run(ours, "--gpu-latency", text)
    assert (proc.returncode, proc.stderr) == (0, "")
    assert "gpu-latency     20.0 at 32 KiB" in proc.stdout
    assert "L1 (8-64 KiB)        gpubench     16.0 (2 sizes)  gpu-latency     20.0 (1 sizes)  " \
           "-20.0%  OUTSIDE 10%" in proc.stdout
    text.write_text("clock: 1980 1980\n  0  1980  16  17.2  34.0\n")
    proc = run(ours, "--gpu-latency", text)
    assert proc.returncode == 2
    assert proc.stderr == f"compare_latency.py: {text}: no line of gpu-latency's output " \
                          "(iters clock_MHz KiB ms cycles)\n"


def test_a_result_without_chases_is_nothing_to_compare(tmp_path):
    ours = gpubench_file(tmp_path, {"peer/ce/write/0to1": 390.0})
    theirs = nvbandwidth_file(tmp_path, {"device_to_device_latency_sm": [["N/A", 700.0],
                                                                         [900.0, "N/A"]]})
    proc = run(ours, "--nvbandwidth", theirs)
    assert proc.returncode == 2
    assert proc.stderr.startswith("compare_latency.py: nothing to compare: no latency/chase ")
