import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import H200, RunScript
from gbench_builder import (
    copy_run,
    document,
    lacking,
    launch_run,
    module_run,
    run_entries,
    saxpy_run,
    write_json,
)

# The Bencher Metric Format's JSON schema, as Bencher publishes it.
BMF_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema",
    "type": "object",
    "patternProperties": {".+": {"type": "object", "patternProperties": {".+": {
        "type": "object",
        "properties": {"value": {"type": "number"}, "lower_value": {"type": "number"},
                       "upper_value": {"type": "number"}},
        "required": ["value"],
    }}}},
}


def entries(aggregates_only: bool = False) -> list[dict[str, Any]]:
    """Three repetitions of a copy (20, 25, 30 GB/s: stddev 5), a launch (2, 2.5, 3 µs: stddev
    0.5) and a module load timed in ms (0.8, 1, 1.2 ms: stddev 200 µs); one run of saxpy."""
    kw = {"aggregates_only": aggregates_only}
    return (copy_run("HtoD", "pinned", "async", 1024, [20.0, 25.0, 30.0], **kw)
            + launch_run("driver", "submit", 256, [2.0, 2.5, 3.0], **kw)
            + module_run("ptx_jit", [0.8, 1.0, 1.2], time_unit="ms", **kw)
            + saxpy_run("vec4", 1 << 20, 3000.0, peak_gbps=4000.0))


@pytest.fixture(params=[False, True], ids=["repetitions", "aggregates_only"])
def result(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    return write_json(tmp_path / "gpubench.json", document(entries(request.param)))


def strict_json(text: str) -> Any:
    def refuse(token: str) -> None:
        raise AssertionError(f"{token} is not JSON")
    return json.loads(text, parse_constant=refuse)


def test_github_bigger_is_better(result: Path, run_script: RunScript) -> None:
    proc = run_script("export", result, "--format", "github", "--direction", "bigger")
    assert proc.returncode == 0, proc.stderr
    entries = {e["name"]: e for e in strict_json(proc.stdout)}
    assert set(entries) == {"copy/HtoD/pinned/async/1024", "saxpy/vec4/1048576"}
    copy = entries["copy/HtoD/pinned/async/1024"]
    assert copy["value"] == pytest.approx(25.0)
    assert copy["range"] == "± 5"
    assert "range" not in entries["saxpy/vec4/1048576"]  # one run: no spread
    assert {e["unit"] for e in entries.values()} == {"GB/s"}
    assert "NVIDIA H200" in entries["saxpy/vec4/1048576"]["extra"]


def test_github_smaller_is_better_to_file(result: Path, tmp_path: Path,
                                          run_script: RunScript) -> None:
    out = tmp_path / "smaller.json"
    proc = run_script("export", result, "--format=github", "--direction=smaller", "-o", out)
    assert proc.returncode == 0 and proc.stdout == ""
    entries = {e["name"]: e for e in strict_json(out.read_text())}
    assert set(entries) == {"launch/driver/submit/params:256", "launch/module/ptx_jit"}
    launch, module = entries["launch/driver/submit/params:256"], entries["launch/module/ptx_jit"]
    assert (launch["unit"], launch["value"], launch["range"]) == ("µs", pytest.approx(2.5), "± 0.5")
    # real_time in ms, exported in µs, spread included.
    assert (module["unit"], module["value"], module["range"]) == ("µs", pytest.approx(1000.0),
                                                                  "± 200")


def test_a_long_gpu_name_is_shortened_in_each_entry(tmp_path: Path,
                                                    run_script: RunScript) -> None:
    """Each entry names the GPU: a name of 1 MB, written out whole in each, made an export of
    gigabytes from a file of megabytes."""
    doc = json.loads((H200 / "saxpy.json").read_text())
    doc["context"]["gpu_name"] = "H" * (1 << 20)
    path = tmp_path / "long.json"
    path.write_text(json.dumps(doc))
    proc = run_script("export", path, "--format", "github", "--direction", "bigger")
    assert proc.returncode == 0, proc.stderr
    entries = strict_json(proc.stdout)
    assert entries and all(len(e["extra"]) < 1000 for e in entries)
    assert all(e["extra"].startswith("H" * 199 + "…, driver ") for e in entries)


def test_a_figure_some_repetitions_lack_is_exported_with_the_repetitions_holding_it(
        tmp_path: Path, run_script: RunScript) -> None:
    # A counter written only where its read succeeded.
    entries = lacking(copy_run("HtoD", "pinned", "async", 1024, [20.0, 25.0, 30.0]), 2,
                      "bytes_per_second")
    proc = run_script("export", write_json(tmp_path / "r.json", document(entries)),
                      "--format", "github", "--direction", "bigger")
    assert proc.returncode == 0, proc.stderr
    [entry] = strict_json(proc.stdout)
    assert entry["value"] == pytest.approx(22.5)
    assert entry["extra"].endswith("; median of 3 repetitions; bytes_per_second in 2 of them; "
                                   "range: stddev of 2 repetitions")


def test_bencher(result: Path, tmp_path: Path, run_script: RunScript) -> None:
    out = tmp_path / "bencher.json"
    proc = run_script("export", result, "--format", "bencher", "-o", out)
    assert proc.returncode == 0, proc.stderr
    doc = strict_json(out.read_text())
    assert doc["copy/HtoD/pinned/async/1024"] == {"throughput-gbps": {
        "value": pytest.approx(25.0), "lower_value": pytest.approx(20.0),
        "upper_value": pytest.approx(30.0)}}
    assert doc["saxpy/vec4/1048576"] == {"throughput-gbps": {"value": pytest.approx(3000.0)}}
    assert doc["launch/driver/submit/params:256"] == {"latency-us": {
        "value": pytest.approx(2.5), "lower_value": pytest.approx(2.0),
        "upper_value": pytest.approx(3.0)}}
    assert doc["launch/module/ptx_jit"] == {"latency-us": {
        "value": pytest.approx(1000.0), "lower_value": pytest.approx(800.0),
        "upper_value": pytest.approx(1200.0)}}
    # Installed from scripts/requirements-test.txt; a machine without it (the GPU machines) skips
    # here.
    pytest.importorskip("check_jsonschema")
    schema = tmp_path / "bmf.schema.json"
    schema.write_text(json.dumps(BMF_SCHEMA))
    check = subprocess.run([sys.executable, "-m", "check_jsonschema", "--schemafile", schema, out],
                           capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stdout + check.stderr


def test_lower_value_is_never_negative(tmp_path: Path, run_script: RunScript) -> None:
    spread = write_json(tmp_path / "r.json", document(launch_run("graph", "submit", 0,
                                                                 [0.01, 0.02, 0.2])))
    proc = run_script("export", spread, "--format", "bencher")
    assert proc.returncode == 0, proc.stderr
    assert strict_json(proc.stdout)["launch/graph/submit/params:0"]["latency-us"][
        "lower_value"] == 0.0


def test_a_negative_figure_has_its_lower_value_below_it(tmp_path: Path,
                                                       run_script: RunScript) -> None:
    """A family's own counter may be negative: value ∓ stddev, with nothing clamped to 0 (which
    put lower_value above the value). A figure measured at 0 and above keeps the clamp."""
    facts = {"schema": 1, "families": [{
        "name": "skew", "order": 1, "grammar": "skew/<case>",
        "argument": None,
        "figures": [{"counter": "skew_us", "unit": "µs", "scale": 1, "better": "lower"}]}]}
    runs = []
    for case, values in (("below", [-10.0, -5.0, -15.0]), ("across", [-1.0, 1.0, 3.0]),
                         ("above", [0.0, 1.0, 5.0])):
        runs += run_entries(f"skew/{case}/manual_time",
                            [{"real_time": 1.0, "skew_us": v} for v in values])
    doc = document(runs, gpubench_families=json.dumps(facts))
    proc = run_script("export", write_json(tmp_path / "r.json", doc), "--format", "bencher")
    assert proc.returncode == 0, proc.stderr
    exported = {name: m["latency-us"] for name, m in strict_json(proc.stdout).items()}
    assert exported["skew/below"] == {"value": -10.0, "lower_value": pytest.approx(-15.0),
                                      "upper_value": pytest.approx(-5.0)}
    assert exported["skew/across"] == {"value": 1.0, "lower_value": pytest.approx(-1.0),
                                       "upper_value": pytest.approx(3.0)}
    assert exported["skew/above"]["lower_value"] == 0.0


@pytest.mark.parametrize("args", [["--format", "github"], ["--format", "bencher", "--direction",
                                                           "bigger"]])
def test_direction_only_with_github(result: Path, run_script: RunScript, args: list[str]) -> None:
    assert run_script("export", result, *args).returncode == 2


def one_line_error(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode == 2, proc.stderr
    assert (proc.stderr.startswith("gpubench-tools export: ")
            and proc.stderr.count("\n") == 1), proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize("doc_entries,args", [
    (launch_run("driver", "submit", 0, 2.0), ["--format", "github", "--direction", "bigger"]),
    (copy_run("HtoD", "pinned", "async", 1024, 20.0), ["--format", "github", "--direction",
                                                      "smaller"]),
    (copy_run("HtoD", "pinned", "async", 1024, 20.0),
     ["--format", "bencher", "--filter", "^saxpy"]),
    (copy_run("HtoD", "pinned", "async", 1024, 20.0), ["--format", "bencher", "--filter", "["]),
    ([], ["--format", "bencher"]),
])
def test_empty_selection(tmp_path: Path, run_script: RunScript, doc_entries: list[Any],
                         args: list[str]) -> None:
    out = tmp_path / "out.json"
    result = write_json(tmp_path / "r.json", document(doc_entries))
    one_line_error(run_script("export", result, *args, "-o", out))
    assert not out.exists()


@pytest.mark.parametrize("field,bad", [("bytes_per_second", float("nan")),
                                       ("bytes_per_second", float("inf")),
                                       ("us_per_copy", float("-inf"))])
def test_non_finite_values(tmp_path: Path, run_script: RunScript, field: str, bad: float) -> None:
    doc = document(copy_run("HtoD", "pinned", "async", 1024, [20.0, 25.0, 30.0]))
    doc["benchmarks"][1][field] = bad  # json.dumps writes NaN / Infinity tokens
    result = write_json(tmp_path / "r.json", doc)
    for args in (["--format", "bencher"], ["--format", "github", "--direction", "bigger"]):
        one_line_error(run_script("export", result, *args))


def test_non_finite_stddev_aggregate(tmp_path: Path, run_script: RunScript) -> None:
    doc = document(copy_run("HtoD", "pinned", "async", 1024, [20.0, 25.0, 30.0],
                            aggregates_only=True))
    stddev = next(e for e in doc["benchmarks"] if e.get("aggregate_name") == "stddev")
    stddev["bytes_per_second"] = float("inf")
    one_line_error(run_script("export", write_json(tmp_path / "r.json", doc),
                              "--format", "bencher"))


@pytest.mark.parametrize("stddev", [-5e9, "9" * 400])
def test_stddev_aggregate_that_is_no_spread(tmp_path: Path, run_script: RunScript,
                                            stddev: float | str) -> None:
    """A negative stddev would export lower_value above upper_value; one no float holds would
    overflow."""
    doc = document(copy_run("HtoD", "pinned", "async", 1024, [20.0, 25.0, 30.0],
                            aggregates_only=True))
    entry = next(e for e in doc["benchmarks"] if e.get("aggregate_name") == "stddev")
    entry["bytes_per_second"] = "@@"
    result = tmp_path / "r.json"
    result.write_text(json.dumps(doc).replace('"@@"', str(stddev)))
    one_line_error(run_script("export", result, "--format", "bencher"))


@pytest.mark.parametrize("output", ["folder", "missing/out.json"])
def test_unwritable_output(result: Path, tmp_path: Path, run_script: RunScript,
                           output: str) -> None:
    (tmp_path / "folder").mkdir()
    one_line_error(run_script("export", result, "--format", "bencher", "-o", tmp_path / output))


def test_bad_input(tmp_path: Path, run_script: RunScript) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{]")
    one_line_error(run_script("export", bad, "--format", "bencher"))
