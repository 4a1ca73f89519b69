"""compare_bandwidth.py on files written as gpubench and nvbandwidth -j write them: each
nvbandwidth cell meets the gpubench benchmark that moves the same bytes, and bad input is one
line with exit status 2."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

TOOL = Path(__file__).with_name("compare_bandwidth.py")
MIB = 256
SIZE = MIB << 20


def gpubench_file(tmp_path, gbps_by_name, repetitions=3):
    """Repetitions around each figure (the median is the figure), with aggregates beside, as
    gpubench writes them."""
    benchmarks = []
    for name, gbps in gbps_by_name.items():
        run = {"run_name": f"{name}/{SIZE}/manual_time", "repetitions": repetitions,
               "threads": 1, "iterations": 100, "time_unit": "us"}
        rates = [(gbps + spread) * 1e9 for spread in (-0.5, 0.0, 0.5)[:repetitions]]
        for index, rate in enumerate(rates):
            benchmarks.append({"name": run["run_name"], "run_type": "iteration",
                               "repetition_index": index, **run, "real_time": SIZE / rate * 1e6,
                               "cpu_time": 1.0, "bytes_per_second": rate})
        benchmarks.append({"name": f"{run['run_name']}_mean", "run_type": "aggregate",
                           "aggregate_name": "mean", **run,
                           "real_time": sum(SIZE / rate * 1e6 for rate in rates) / len(rates),
                           "cpu_time": 1.0, "bytes_per_second": sum(rates) / len(rates)})
    path = tmp_path / "gpubench.json"
    path.write_text(json.dumps({"context": {"gpubench_version": "0.1.0"},
                                "benchmarks": benchmarks}))
    return path


def nvbandwidth_file(tmp_path, cases, name="nvbandwidth.json"):
    testcases = [{"name": case, "status": "Passed",
                  "bandwidth_matrix": [[v if isinstance(v, str) else f"{v:g}" for v in row]
                                       for row in rows]}
                 for case, rows in cases.items()]
    path = tmp_path / name
    path.write_text(json.dumps({"nvbandwidth": {"version": "v0.8", "testcases": testcases}}))
    return path


def run(*args):
    return subprocess.run([sys.executable, str(TOOL), *map(str, args)], capture_output=True,
                          text=True, timeout=60)


def lines_of(result):
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_each_pattern_cell_meets_the_benchmark_moving_the_same_bytes(tmp_path):
    ours = gpubench_file(tmp_path, {
        "peer/ce/write/allto1": 700.0, "peer/ce/read/1toall": 650.0,
        "peer/ce/write/0toall": 600.0, "peer/ce/read/allto0": 500.0,
        "peer/sm/write/0toall": 400.0, "peer/sm/write/allto1": 300.0})
    theirs = nvbandwidth_file(tmp_path, {
        "all_to_one_write_ce": [["N/A", 700.0]], "all_to_one_read_ce": [["N/A", 650.0]],
        "one_to_all_write_ce": [[610.0, "N/A"]], "one_to_all_read_ce": [[500.0, "N/A"]],
        "all_to_one_read_sm": [[400.0, "N/A"]], "one_to_all_read_sm": [["N/A", 300.0]]})
    out = lines_of(run(ours, theirs, "--buffer-mib", MIB))
    assert f"all_to_one_write_ce column 1: peer/ce/write/allto1/{SIZE} 700.0 GB/s, " \
           f"nvbandwidth 700.0 GB/s, 1.000x within 1%" in out
    assert any(l.startswith(f"all_to_one_read_ce column 1: peer/ce/read/1toall/{SIZE} ")
               for l in out)
    assert any(l.startswith(f"one_to_all_read_ce column 0: peer/ce/read/allto0/{SIZE} ")
               for l in out)
    assert any(l.startswith(f"all_to_one_read_sm column 0: peer/sm/write/0toall/{SIZE} ")
               for l in out)
    assert any(l.startswith(f"one_to_all_read_sm column 1: peer/sm/write/allto1/{SIZE} ")
               for l in out)
    assert f"one_to_all_write_ce column 0: peer/ce/write/0toall/{SIZE} 600.0 GB/s, " \
           f"nvbandwidth 610.0 GB/s, 0.984x OUTSIDE 1%" in out
    assert out[-1] == "5 of 6 within 1% of nvbandwidth"


def test_pairs_read_their_row_and_column_the_way_nvbandwidth_writes_them(tmp_path):
    ours = gpubench_file(tmp_path, {"peer/ce/write/0to1": 390.0, "peer/ce/write/1to0": 380.0,
                                    "peer/sm/read/0to1": 370.0, "peer/sm/read/1to0": 360.0})
    theirs = nvbandwidth_file(tmp_path, {
        "device_to_device_memcpy_write_ce": [["N/A", 390.0], [380.0, "N/A"]],
        # read: row = the GPU that pulls (the destination), column = the source
        "device_to_device_memcpy_read_sm": [["N/A", 360.0], [370.0, "N/A"]]})
    out = lines_of(run(ours, theirs, "--buffer-mib", MIB))
    assert out[-1] == "4 of 4 within 1% of nvbandwidth"
    assert any(l.startswith(f"device_to_device_memcpy_read_sm [1][0]: peer/sm/read/0to1/{SIZE} "
                            "370.0 GB/s, nvbandwidth 370.0") for l in out)


def test_a_bidirectional_case_is_read_from_its_total_matrix(tmp_path):
    ours = gpubench_file(tmp_path, {"peer/ce/bidir/0to1": 760.0, "peer/ce/bidir/1to0": 760.0,
                                    "peer/ce/write/bisect": 760.0, "peer/ce/read/bisect": 740.0})
    theirs = nvbandwidth_file(tmp_path, {
        "device_to_device_bidirectional_memcpy_write_ce":
            [["N/A", 380.0], [380.0, "N/A"], ["N/A", 380.0], [380.0, "N/A"],
             ["N/A", 760.0], [760.0, "N/A"]],
        "device_to_device_bidirectional_memcpy_read_ce":
            [["N/A", 370.0], [370.0, "N/A"], ["N/A", 370.0], [370.0, "N/A"],
             ["N/A", 740.0], [740.0, "N/A"]]})
    out = lines_of(run(ours, theirs, "--buffer-mib", MIB))
    assert out[-1] == "4 of 4 within 1% of nvbandwidth"
    assert any(l.startswith("device_to_device_bidirectional_memcpy_read_ce total [0][1]: "
                            f"peer/ce/read/bisect/{SIZE} 740.0") for l in out)


def test_host_copies_to_every_gpu_at_once_meet_the_sum_of_nvbandwidths_row(tmp_path):
    ours = gpubench_file(tmp_path, {"copy/HtoD/pinned/async_all_devices": 110.0,
                                    "copy/DtoH/pinned/async_all_devices": 104.0})
    theirs = nvbandwidth_file(tmp_path, {"host_to_all_memcpy_ce": [[55.0, 55.0]],
                                         "all_to_host_memcpy_ce": [[51.0, 53.0]]})
    out = lines_of(run(ours, theirs, "--buffer-mib", MIB))
    assert "host_to_all_memcpy_ce sum of the row: copy/HtoD/pinned/async_all_devices/" \
           f"{SIZE} 110.0 GB/s, nvbandwidth 110.0 GB/s, 1.000x within 1%" in out
    assert out[-1] == "2 of 2 within 1% of nvbandwidth"


def test_a_cell_gpubench_lacks_and_a_failed_case_are_named(tmp_path):
    ours = gpubench_file(tmp_path, {"peer/ce/write/allto1": 700.0})
    theirs = nvbandwidth_file(tmp_path, {"all_to_one_write_ce": [[690.0, 700.0]]})
    doc = json.loads(theirs.read_text())
    doc["nvbandwidth"]["testcases"] += [{"name": "one_to_all_write_ce", "status": "Error"},
                                        {"name": "host_device_latency_sm", "status": "Passed",
                                         "bandwidth_matrix": [["1201.3"]]}]
    theirs.write_text(json.dumps(doc))
    out = lines_of(run(ours, theirs, "--buffer-mib", MIB))
    assert f"all_to_one_write_ce column 0: no peer/ce/write/allto0/{SIZE} in {ours}" in out
    assert "one_to_all_write_ce: not compared, nvbandwidth's status is Error" in out
    assert "host_device_latency_sm: not compared, no gpubench benchmark moves what it " \
           "measures" in out
    assert out[-1] == "1 of 1 within 1% of nvbandwidth"


@pytest.mark.parametrize("text", ["", "{", "[]", '{"nvbandwidth": {}}', "\xff",
                                  '{"nvbandwidth": {"testcases": [{"name": "x", '
                                  '"bandwidth_matrix": ["12"]}]}}',
                                  '{"nvbandwidth": {"testcases": [{"name": "x", '
                                  '"bandwidth_matrix": [["fast"]]}]}}'])
def test_a_file_that_is_not_nvbandwidth_output_is_one_line(tmp_path, text):
    ours = gpubench_file(tmp_path, {"peer/ce/write/allto1": 700.0})
    theirs = tmp_path / "bad.json"
    theirs.write_bytes(text.encode("latin-1"))
    result = run(ours, theirs, "--buffer-mib", MIB)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and str(theirs) in result.stderr


def test_sizes_that_do_not_meet_are_nothing_to_compare_not_a_pass(tmp_path):
    ours = gpubench_file(tmp_path, {"peer/ce/write/allto1": 700.0})
    theirs = nvbandwidth_file(tmp_path, {"all_to_one_write_ce": [["N/A", 700.0]]})
    result = run(ours, theirs, "--buffer-mib", 512)
    assert result.returncode == 2
    assert "nothing to compare" in result.stderr and "512 MiB" in result.stderr
