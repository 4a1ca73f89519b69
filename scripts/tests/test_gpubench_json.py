import json
from pathlib import Path

import pytest
from gbench_builder import copy_run, document, launch_run, module_run, run_entries, write_json

import gpubench_json as gj


@pytest.mark.parametrize(("name", "stripped"), [
    ("launch/runtime/submit/params:256/manual_time", "launch/runtime/submit/params:256"),
    ("copy/HtoD/pinned/async/1024/min_time:0.100/min_warmup_time:0.050/iterations:10"
     "/repeats:5/manual_time/threads:1", "copy/HtoD/pinned/async/1024"),
    ("launch/module/ptx_jit/real_time", "launch/module/ptx_jit"),
    ("saxpy/vec4/1048576", "saxpy/vec4/1048576"),
])
def test_strip_gb_suffixes(name: str, stripped: str) -> None:
    assert gj.strip_gb_suffixes(name) == stripped


def load_entries(tmp_path: Path, entries: list[dict]) -> gj.Result:
    return gj.load(write_json(tmp_path / "r.json", document(entries)))


def test_median_aggregate_is_the_value(tmp_path: Path) -> None:
    result = load_entries(tmp_path, copy_run("HtoD", "pinned", "async", 1024, [10.0, 11.0, 30.0]))
    bench = result.benchmarks["copy/HtoD/pinned/async/1024"]
    assert bench.value() == pytest.approx(11.0)
    assert sorted(bench.repetition_values()) == pytest.approx([10.0, 11.0, 30.0])
    assert not result.aggregates_only


def test_mean_of_iterations_without_aggregates(tmp_path: Path) -> None:
    entries = [e for e in launch_run("driver", "submit", 0, [2.0, 3.0, 7.0])
               if e["run_type"] == "iteration"]
    bench = load_entries(tmp_path, entries).benchmarks["launch/driver/submit/params:0"]
    assert bench.value() == pytest.approx(4.0)
    assert bench.summary == "mean of 3 repetitions"


def test_aggregates_only_has_no_repetitions(tmp_path: Path) -> None:
    result = load_entries(tmp_path, launch_run("graph", "submit", 0, [2.0, 3.0, 7.0],
                                               aggregates_only=True))
    bench = result.benchmarks["launch/graph/submit/params:0"]
    assert result.aggregates_only
    assert bench.value() == pytest.approx(3.0)
    assert bench.repetition_values().size == 0


def test_time_unit_and_failed_runs(tmp_path: Path) -> None:
    failed = run_entries("launch/module/ptx_jit/manual_time", [{"real_time": 1.0}])
    failed[0].update(error_occurred=True, error_message="no PTX")
    result = load_entries(tmp_path, module_run("cubin_load", 2.0, time_unit="ms") + failed)
    assert list(result.benchmarks) == ["launch/module/cubin_load"]
    assert result.benchmarks["launch/module/cubin_load"].value() == pytest.approx(2000.0)


def test_primary_metric_per_family(tmp_path: Path) -> None:
    entries = (copy_run("DtoD", "device", "async", 4096, 100.0)
               + launch_run("runtime", "throughput", 0, 2.5) + module_run("ptx_jit", 900.0)
               + run_entries("other/thing/manual_time", [{"real_time": 5.0}], time_unit="ns"))
    benches = load_entries(tmp_path, entries).benchmarks
    copy = benches["copy/DtoD/device/async/4096"]
    assert (copy.metric, copy.value()) == (gj.GBPS, pytest.approx(100.0))
    assert copy.metric.bigger_is_better and copy.metric.unit == "GB/s"
    launch = benches["launch/runtime/throughput/params:0"]
    assert (launch.metric, launch.value()) == (gj.LAUNCH_US, pytest.approx(2.5))
    assert benches["launch/module/ptx_jit"].metric == gj.REAL_TIME_US
    assert benches["other/thing"].value() == pytest.approx(0.005)
    assert not benches["other/thing"].metric.bigger_is_better


@pytest.mark.parametrize(("content", "error"), [
    (None, gj.MissingFileError),
    ("", gj.EmptyFileError),
    ("  \n", gj.EmptyFileError),
    ("{not json", gj.InvalidJsonError),
    (json.dumps([1, 2]), gj.NotGpubenchError),
    (json.dumps({"context": {}, "benchmarks": []}), gj.NotGpubenchError),
    (json.dumps({"context": {"gpubench_version": "1"}, "benchmarks": [3]}),
     gj.MalformedResultError),
])
def test_load_rejects_bad_input(tmp_path: Path, content: str | None, error: type) -> None:
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(error) as info:
        gj.load(path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)
