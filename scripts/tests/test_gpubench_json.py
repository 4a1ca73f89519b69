import json
import os
import threading
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from conftest import H200
from gbench_builder import (
    COMPRESSORS,
    bad_results,
    copy_run,
    document,
    lacking,
    launch_run,
    module_run,
    run_entries,
    write_bad,
    write_json,
)

from gpubench_tools.reading import errors
from gpubench_tools.reading.bounded_read import MAX_RESULT_BYTES
from gpubench_tools.reading.errors import (
    BadValueError,
    GpubenchJsonError,
    MalformedResultError,
    MissingFileError,
    TooLargeError,
    WrongTypeError,
)
from gpubench_tools.reading.facts import (
    GBPS,
    REAL_TIME_US,
    Argument,
    Metric,
    NameParts,
    strip_gb_suffixes,
)
from gpubench_tools.reading.json_values import DuplicateKeyError, json_loads
from gpubench_tools.reading.result_file import (
    MAX_CONTAINERS,
    MAX_VALUES,
    json_counts,
    load,
    read_file,
)
from gpubench_tools.reading.results import Benchmark, Result


@pytest.mark.parametrize(("name", "stripped"), [
    ("launch/runtime/submit/params:256/manual_time", "launch/runtime/submit/params:256"),
    ("copy/HtoD/pinned/async/1024/min_time:0.100/min_warmup_time:0.050/iterations:10"
     "/repeats:5/manual_time/threads:1", "copy/HtoD/pinned/async/1024"),
    ("launch/module/ptx_jit/real_time", "launch/module/ptx_jit"),
    ("saxpy/vec4/1048576", "saxpy/vec4/1048576"),
])
def test_strip_gb_suffixes(name: str, stripped: str) -> None:
    assert strip_gb_suffixes(name) == stripped


def load_entries(tmp_path: Path, entries: list[dict]) -> Result:
    return load(write_json(tmp_path / "r.json", document(entries)))


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


def copy_lacking_a_figure_once() -> list[dict]:
    """Three repetitions of a copy (20, 25, 30 GB/s) whose last lacks bytes_per_second, as a
    counter written only where its read succeeded is lacking; the median aggregate is Google
    Benchmark's, over the two that hold it."""
    return lacking(copy_run("HtoD", "pinned", "async", 1024, [20.0, 25.0, 30.0]), 2,
                   "bytes_per_second")


def test_a_figure_some_repetitions_lack_says_how_many_hold_it(tmp_path: Path) -> None:
    bench = load_entries(tmp_path, copy_lacking_a_figure_once()).benchmarks[
        "copy/HtoD/pinned/async/1024"]
    assert bench.value() == pytest.approx(22.5)
    assert bench.summary_of() == "median of 3 repetitions; bytes_per_second in 2 of them"
    assert bench.summary_of(REAL_TIME_US) == "median of 3 repetitions"
    iterations = [e for e in copy_lacking_a_figure_once() if e["run_type"] == "iteration"]
    bench = load_entries(tmp_path, iterations).benchmarks["copy/HtoD/pinned/async/1024"]
    assert bench.value() == pytest.approx(22.5)
    assert bench.summary_of() == "mean of 3 repetitions; bytes_per_second in 2 of them"


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


def test_figures_inferred_in_a_file_without_facts(tmp_path: Path) -> None:
    entries = (copy_run("DtoD", "device", "async", 4096, 100.0)
               + launch_run("runtime", "throughput", 0, 2.5) + module_run("ptx_jit", 900.0)
               + run_entries("other/thing/manual_time", [{"real_time": 5.0}], time_unit="ns"))
    benches = load_entries(tmp_path, entries).benchmarks
    copy = benches["copy/DtoD/device/async/4096"]
    assert (copy.metric, copy.value()) == (GBPS, pytest.approx(100.0))
    assert copy.metric.bigger_is_better and copy.metric.unit == "GB/s"
    launch = benches["launch/runtime/throughput/params:0"]
    assert (launch.metric, launch.value()) == (Metric("us_per_launch", "µs", 1.0, False),
                                               pytest.approx(2.5))
    assert benches["launch/module/ptx_jit"].metric == REAL_TIME_US
    assert benches["other/thing"].value() == pytest.approx(0.005)
    assert not benches["other/thing"].metric.bigger_is_better


@pytest.mark.parametrize(("content", "error"), [
    pytest.param(content, error, id=name) for name, content, error in bad_results()])
def test_load_rejects_bad_input(tmp_path: Path, content: object, error: str) -> None:
    path = write_bad(tmp_path / "bad.json", content)
    with pytest.raises(GpubenchJsonError) as info:
        load(path)
    assert type(info.value).__name__ == error
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{path}: ") and len(message) < 300


def test_error_classes_share_one_base() -> None:
    for name in ("MissingFileError", "EmptyFileError", "InvalidJsonError", "NotGpubenchError",
                 "MalformedResultError", "WrongTypeError", "BadValueError",
                 "DuplicateBenchmarkError", "NoBenchmarksError"):
        assert issubclass(getattr(errors, name), GpubenchJsonError)
    assert issubclass(WrongTypeError, MalformedResultError)


def test_no_benchmarks_allowed_when_asked(tmp_path: Path) -> None:
    path = write_json(tmp_path / "empty.json", document([]))
    assert load(path, require_benchmarks=False).benchmarks == {}


def test_repetitions_without_indices_up_to_their_count(tmp_path: Path) -> None:
    entries = [{k: v for k, v in e.items() if k != "repetition_index"}
               for e in launch_run("driver", "submit", 0, [2.0, 3.0, 4.0])]
    bench = load_entries(tmp_path, entries).benchmarks["launch/driver/submit/params:0"]
    assert sorted(bench.repetition_values()) == pytest.approx([2.0, 3.0, 4.0])


def test_failed_runs_are_not_checked(tmp_path: Path) -> None:
    failed = run_entries("launch/module/ptx_jit/manual_time", [{"real_time": 0.0}])
    failed[0].update(error_occurred=True, error_message="no PTX", time_unit="?")
    result = load_entries(tmp_path, module_run("cubin_load", 2.0) + failed)
    assert list(result.benchmarks) == ["launch/module/cubin_load"]


def test_spread_aggregates_may_be_zero(tmp_path: Path) -> None:
    steady = load_entries(tmp_path, launch_run("driver", "submit", 0, [2.0, 2.0, 2.0],
                                               aggregates_only=True))
    bench = steady.benchmarks["launch/driver/submit/params:0"]
    assert bench.cv_pct() == (0.0, 3)


def test_cv_pct_from_repetitions_or_the_cv_aggregate(tmp_path: Path) -> None:
    reps = [50.0, 51.0, 49.0, 50.5]
    expected = 100 * np.std(reps, ddof=1) / np.mean(reps)
    for aggregates_only in (False, True):
        result = load_entries(tmp_path, copy_run("HtoD", "pinned", "async", 1024, reps,
                                                 aggregates_only=aggregates_only))
        cv, count = result.benchmarks["copy/HtoD/pinned/async/1024"].cv_pct()
        assert cv == pytest.approx(expected) and count == 4
    single = load_entries(tmp_path, copy_run("HtoD", "pinned", "async", 1024, 50.0))
    assert single.benchmarks["copy/HtoD/pinned/async/1024"].cv_pct() is None


def test_context_text(tmp_path: Path) -> None:
    doc = document(launch_run("driver", "submit", 0, 2.0), pcie_link="Gen5 x16")
    doc["context"].update(load_avg=[1.5, 0.25], nested=[[[[1]]]], num_cpus=16)
    result = load(write_json(tmp_path / "r.json", doc))
    assert result.context_text("pcie_link") == "Gen5 x16"
    assert result.context_text("load_avg") == "[1.5,0.25]"
    assert result.context_text("num_cpus") == "16"
    assert result.context_text("absent") is None
    assert (result.gpu_name, result.driver_version, result.cuda_version) == \
        ("NVIDIA H200", "570.86.15", "12080")


# Every result file committed for the H200; facts/describe.json is gpubench --describe's output,
# no result.
COMMITTED_RESULTS = [p for p in sorted(H200.glob("*.json")) + sorted(H200.glob("*/*.json"))
                     if p.name != "describe.json"]


@pytest.mark.parametrize("path", COMMITTED_RESULTS, ids=lambda p: p.name)
def test_committed_results_load(path: Path) -> None:
    result = load(path)
    assert result.benchmarks and result.context["gpu_name"] == "NVIDIA H200"
    for bench in result.benchmarks.values():
        assert bench.value() > 0


def test_figures_and_names_read_by_the_declared_facts(tmp_path: Path) -> None:
    """The context's facts decide: a counter no inference would pick (errors, lower better),
    the argument's key and unit, a trailing device:N."""
    facts = {"schema": 1, "families": [
        {"name": "probe", "order": 5, "grammar": "probe/<kind>/n:<elements>",
         "argument": {"key": "n", "unit": "elements"},
         "figures": [{"counter": "errors", "unit": "errors", "scale": 1.0, "better": "lower"}],
         "flags": []},
        {"name": "plain", "order": 1, "grammar": "plain/<what>", "argument": None,
         "figures": [], "flags": []}]}
    entries = (run_entries("probe/ecc/n:4096/device:1/manual_time",
                           [{"real_time": 1.0, "errors": 3.0, "bytes_per_second": 1e9}])
               + run_entries("probe/ecc/4096/manual_time", [{"real_time": 1.0, "errors": 4.0}])
               + run_entries("plain/x/64/manual_time", [{"real_time": 2.0, "us_per_x": 9.0}]))
    path = write_json(tmp_path / "r.json", document(entries, gpubench_families=facts))
    result = load(path)
    probe = result.benchmarks["probe/ecc/n:4096/device:1"]
    assert probe.metric == Metric("errors", "errors", 1.0, False) and probe.value() == 3.0
    assert probe.parts == NameParts("probe", "ecc", 4096, 1, "n")
    # The bare number is no argument of a family whose key is n.
    assert result.benchmarks["probe/ecc/4096"].parts == NameParts("probe", "ecc/4096", None,
                                                                      None)
    plain = result.benchmarks["plain/x/64"]
    assert plain.parts.argument is None and plain.metric == REAL_TIME_US
    assert list(result.families) == ["plain", "probe"]  # by declared order
    assert result.families["probe"].argument == Argument("n", "elements")


def test_a_figure_declared_with_panel_is_drawn_beside_the_figure(tmp_path: Path) -> None:
    """The figures the plots draw of a benchmark: its figure, then each declared with `panel`
    that it carries; facts without `panel` and files without facts draw the figure alone."""
    share = {"counter": "share", "unit": "% of ceiling", "scale": 1.0, "better": "higher",
             "panel": True}
    rate = {"counter": "bytes_per_second", "unit": "GB/s", "scale": 1e-9, "better": "higher"}
    entries = run_entries("a/x/64/manual_time", [{"real_time": 1.0, "bytes_per_second": 2e9,
                                                  "share": 40.0}])
    entries += run_entries("a/y/64/manual_time", [{"real_time": 1.0, "bytes_per_second": 2e9}])
    gbps = Metric("bytes_per_second", "GB/s", 1e-9, True)
    pct = Metric("share", "% of ceiling", 1.0, True)
    for figures, drawn in (([rate, share], [gbps, pct]),
                           ([rate, dict(share, panel=False)], [gbps]),
                           ([rate, {k: v for k, v in share.items() if k != "panel"}], [gbps]),
                           ([share, rate], [pct])):
        facts = {"schema": 1, "families": [{"name": "a", "argument": {"key": "", "unit": "bytes"},
                                            "figures": figures}]}
        result = load(write_json(tmp_path / "r.json",
                                    document(entries, gpubench_families=facts)))
        assert result.benchmarks["a/x/64"].panel_metrics == drawn, figures
        assert result.benchmarks["a/y/64"].panel_metrics == [gbps]  # it carries no share
    without_facts = load(write_json(tmp_path / "r.json", document(entries)))
    assert without_facts.benchmarks["a/x/64"].panel_metrics == [gbps]


@pytest.mark.parametrize(("context", "l2"), [
    ({"l2_bytes": "62914560"}, 62914560), ({}, None), ({"l2_bytes": "0"}, None),
    ({"l2_bytes": "60 MiB"}, None), ({"l2_bytes": 62914560}, 62914560),
])
def test_l2_bytes(tmp_path: Path, context: dict, l2: int | None) -> None:
    path = write_json(tmp_path / "r.json", document(
        run_entries("a/x/manual_time", [{"real_time": 1.0}]), **context))
    assert load(path).l2_bytes == l2


@pytest.mark.parametrize(("facts", "problem"), [
    ("not json", "is text that is no JSON object"),
    ({"families": []}, "schema null, not the 1"),
    ({"schema": 2, "families": []}, "schema 2, not the 1"),
    ({"schema": 1, "families": [5]}, "families[0] is a number, not an object"),
    ({"schema": 1, "families": [{"name": "a/b"}]}, "not a name component"),
    ({"schema": 1, "families": [{"name": "a", "argument": {"key": "k", "unit": "inches"}}]},
     "'argument' is not null or"),
    ({"schema": 1, "families": [{"name": "a", "figures": [
        {"counter": "c", "unit": "u", "scale": 0, "better": "lower"}]}]}, "'scale' is 0"),
    ({"schema": 1, "families": [{"name": "a", "figures": [
        {"counter": "c", "unit": "u", "scale": 1e300, "better": "lower"}]}]},
     "'scale' is 1e+300, not a number from 1e-30 to 1e+30"),
    ({"schema": 1, "families": [{"name": "a", "figures": [
        {"counter": "c", "unit": "u", "scale": 10**400, "better": "lower"}]}]},
     "'scale' is an integer of more than 64 bits"),
    ({"schema": 1, "families": [{"name": "a", "figures": [
        {"counter": "c", "unit": "u", "scale": 1, "better": "up"}]}]}, "'better' is 'up'"),
    ({"schema": 1, "families": [{"name": "a", "figures": [
        {"counter": "c", "unit": "u", "scale": 1, "better": "lower", "panel": 1}]}]},
     "'panel' is a number, not true or false"),
    ({"schema": 1, "families": [{"name": "a"}, {"name": "a"}]}, "family 'a' appears twice"),
])
def test_facts_that_do_not_read_are_one_line(tmp_path: Path, facts: object,
                                             problem: str) -> None:
    path = write_json(tmp_path / "r.json", document(
        run_entries("a/x/manual_time", [{"real_time": 1.0}]), gpubench_families=facts))
    with pytest.raises(MalformedResultError) as error:
        load(path)
    assert problem in str(error.value) and "\n" not in str(error.value)
    assert str(error.value).startswith(f"{path}: context 'gpubench_families'")


def test_host_paced(tmp_path: Path) -> None:
    entries = (run_entries("x/HtoD/pageable/async/4096/manual_time",
                           [{"real_time": 1.0, "host_timed": 0}])
               + run_entries("x/HtoD/pinned/sync/4096/manual_time", [{"real_time": 1.0}])
               + run_entries("x/HtoD/pinned/async/4096/manual_time",
                             [{"real_time": 1.0, "host_timed": 1}]))
    benches = load_entries(tmp_path, entries).benchmarks
    assert [b.host_paced for b in benches.values()] == [True, None, True]


def test_the_kernel_read_sm_clock_is_a_condition_not_a_figure(tmp_path: Path) -> None:
    """sm_clock_kernel_mhz rides on every benchmark: it never becomes a benchmark's figure, with
    facts or without, and reads as the median over the repetitions."""
    entries = (module_run("ptx_jit", [900.0, 910.0, 905.0])
               + launch_run("driver", "submit", 0, [2.0, 2.1, 2.2]))
    for entry, mhz in zip((e for e in entries if e["run_type"] == "iteration"),
                          (1980.0, 1500.0, 1970.0, 1980.0, 1980.0, 1980.0)):
        entry["sm_clock_kernel_mhz"] = mhz
    benches = load_entries(tmp_path, entries).benchmarks
    assert benches["launch/module/ptx_jit"].metric == REAL_TIME_US
    assert benches["launch/module/ptx_jit"].kernel_sm_clock_mhz == pytest.approx(1970.0)
    assert benches["launch/driver/submit/params:0"].metric.key == "us_per_launch"
    assert Benchmark("x/y", {"real_time": 1.0}, [], "one run").kernel_sm_clock_mhz is None


@pytest.mark.parametrize("mhz", [0, -1980.0])
def test_a_clock_that_is_no_clock_is_refused(tmp_path: Path, mhz: float) -> None:
    entries = module_run("ptx_jit", 900.0)
    entries[0]["sm_clock_kernel_mhz"] = mhz
    with pytest.raises(BadValueError, match="'sm_clock_kernel_mhz' is .*; a clock is > 0"):
        load_entries(tmp_path, entries)


@pytest.mark.parametrize(("fields", "problem"), [
    # Checked in µs: 1e303 s is infinite there, 5e-324 ns is 0.
    ({"real_time": 1e303, "time_unit": "s"}, "'real_time' is inf µs, not a finite number"),
    ({"real_time": 5e-324, "time_unit": "ns"}, "'real_time' is 0 µs, outside 1e-30 to 1e+30"),
    ({"cpu_time": 5e-324, "time_unit": "ns"}, "'cpu_time' is 0 µs, outside"),
    ({"real_time": 1.7e308}, "'real_time' is 1.7e+308 µs, outside"),
    ({"real_time": 5e-324}, "'real_time' is 4.94066e-324 µs, outside"),
    ({"bytes_per_second": 1.7e308}, "'bytes_per_second' is 1.7e+308, outside"),
    ({"us_per_launch": 2e30}, "'us_per_launch' is 2e+30, outside"),
    ({"clock_drift_ns": -1e31}, "'clock_drift_ns' is -1e+31, outside"),
    ({"clock_drift_ns": 1e-31}, "'clock_drift_ns' is 1e-31, outside"),
])
def test_numbers_beyond_any_measurement_are_refused(tmp_path: Path, fields: dict,
                                                     problem: str) -> None:
    """Each number is checked once in the unit the toolkit uses, and bounded so that their
    ratios, unit scalings and sums of squares stay finite and nonzero."""
    entries = launch_run("driver", "submit", 0, 2.0)
    entries[0].update(fields)
    with pytest.raises(BadValueError) as error:
        load_entries(tmp_path, entries)
    assert problem in str(error.value) and "\n" not in str(error.value)
    assert "benchmark 'launch/driver/submit/params:0/manual_time'" in str(error.value)


def test_numbers_at_the_bounds_and_zero_counters_are_read(tmp_path: Path) -> None:
    entries = launch_run("driver", "submit", 0, 2.0)
    entries[0].update(real_time=1e33, time_unit="ns", us_per_launch=1e-30, clock_drift_ns=0,
                      mean_over_median_pct=-1e30)
    bench = load_entries(tmp_path, entries).benchmarks["launch/driver/submit/params:0"]
    assert bench.values["real_time_us"] == pytest.approx(1e30)
    assert bench.values["us_per_launch"] == 1e-30 and bench.values["clock_drift_ns"] == 0


def spread_aggregates(aggregate: str, key: str, number: object) -> list[dict]:
    """A copy run written with aggregates only whose `aggregate` holds `number` for `key`."""
    entries = copy_run("HtoD", "pinned", "async", 4096, [45.0, 50.0, 55.0],
                       aggregates_only=True)
    next(e for e in entries if e["aggregate_name"] == aggregate)[key] = number
    return entries


@pytest.mark.parametrize(("aggregate", "key", "number", "problem"), [
    ("stddev", "bytes_per_second", -5e9, "'bytes_per_second' is -5e+09; a standard deviation "
                                         "is >= 0"),
    pytest.param("stddev", "bytes_per_second", 10**400,
                 "'bytes_per_second' is too large for a float", id="stddev of 401 digits"),
    ("stddev", "real_time", float("inf"), "'real_time' is inf µs, not a finite number"),
    ("stddev", "real_time", 1e31, "'real_time' is 1e+31 µs, outside"),
    ("cv", "bytes_per_second", -0.5, "cv of 'bytes_per_second' is -0.5, below 0 for values "
                                     "whose mean is not"),
    ("cv", "real_time", -0.01, "cv of 'real_time' is -0.01, below 0"),
    ("cv", "bytes_per_second", 1e31, "'bytes_per_second' is 1e+31, outside"),
    ("mean", "bytes_per_second", -5e9, "'bytes_per_second' is -5e+09; a measured time or rate"),
])
def test_spread_and_mean_aggregates_are_checked(tmp_path: Path, aggregate: str, key: str,
                                                number: object, problem: str) -> None:
    with pytest.raises(BadValueError) as error:
        load_entries(tmp_path, spread_aggregates(aggregate, key, number))
    assert problem in str(error.value) and "\n" not in str(error.value)


def test_a_negative_cv_of_a_negative_mean_is_read(tmp_path: Path) -> None:
    """Google Benchmark's cv is the standard deviation over the mean: negative where the mean
    is (gpubench's clock_drift_ns)."""
    entries = copy_run("HtoD", "pinned", "async", 4096, [45.0, 50.0, 55.0],
                       aggregates_only=True, counters={"clock_drift_ns": -3.0})
    for entry in entries:
        entry["clock_drift_ns"] = {"mean": -3.0, "median": -3.0, "stddev": 1.0,
                                   "cv": -1 / 3}[entry["aggregate_name"]]
    bench = load_entries(tmp_path, entries).benchmarks["copy/HtoD/pinned/async/4096"]
    assert bench.cv["clock_drift_ns"] == pytest.approx(-1 / 3)
    assert bench.stddev["bytes_per_second"] == pytest.approx(5.0e9)


def test_a_median_aggregate_that_is_not_the_repetitions_median_is_refused(
        tmp_path: Path) -> None:
    """Every repetition ten times slower beside an unchanged median: neither number can be
    trusted over the other."""
    entries = launch_run("driver", "submit", 0, [2.0, 2.1, 2.2])
    for entry in entries:
        if entry["run_type"] == "iteration":
            entry.update(real_time=10 * entry["real_time"],
                         us_per_launch=10 * entry["us_per_launch"])
    with pytest.raises(BadValueError) as error:
        load_entries(tmp_path, entries)
    assert str(error.value) == (
        f"{tmp_path / 'r.json'}: benchmark 'launch/driver/submit/params:0/manual_time': its "
        "median aggregate of 'real_time' is 2.1, the median of its 3 repetitions 21")


def test_a_median_aggregate_that_differs_by_rounding_is_read(tmp_path: Path) -> None:
    entries = launch_run("driver", "submit", 0, [2.0, 2.1, 2.2])
    median = next(e for e in entries if e.get("aggregate_name") == "median")
    median["real_time"] = float(np.nextafter(median["real_time"], 3.0))
    bench = load_entries(tmp_path, entries).benchmarks["launch/driver/submit/params:0"]
    assert bench.values["real_time_us"] == pytest.approx(2.1, rel=1e-15)


@pytest.mark.parametrize(("padding", "problem"), [
    ("[" + ",".join(["{}"] * MAX_CONTAINERS) + "]",
     f"more than {MAX_CONTAINERS} JSON objects and lists"),
    ("[" + ",".join(["[]"] * MAX_CONTAINERS) + "]",
     f"more than {MAX_CONTAINERS} JSON objects and lists"),
    ("[" + ",".join(["0"] * MAX_VALUES) + "]", f"more than {MAX_VALUES} JSON values"),
], ids=["empty objects", "empty lists", "numbers"])
def test_more_values_than_a_result_holds_are_refused_before_parsing(
        tmp_path: Path, padding: str, problem: str) -> None:
    """Well under 32 MiB, yet Python would hold them in many times their size (32 MiB of `{}`
    takes 0.86 GB to read: results/cpu/script_limits.txt)."""
    doc = document(launch_run("driver", "submit", 0, 2.0), pad="@@")
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc).replace('"@@"', padding))
    with pytest.raises(TooLargeError) as error:
        load(path)
    assert str(error.value) == f"{path}: {problem}, the most a result file the scripts read holds"


def test_braces_and_commas_in_strings_are_not_counted(tmp_path: Path) -> None:
    text = "{[," * MAX_VALUES
    doc = document(run_entries(f"x/{text}/manual_time", [{"real_time": 1.0}]), note=text)
    result = load(write_json(tmp_path / "r.json", doc))
    assert list(result.benchmarks) == [f"x/{text}"]


def test_a_key_given_twice_with_one_value_is_read(tmp_path: Path) -> None:
    """gpubench writes the context's host_name twice (Google Benchmark's and its own)."""
    text = json.dumps(document(launch_run("driver", "submit", 0, [2.0, 2.1])))
    path = tmp_path / "r.json"
    path.write_text(text.replace('"host_name": ', '"host_name": "gpu-runner", "host_name": ', 1))
    assert load(path).context["host_name"] == "gpu-runner"


def test_a_result_that_is_a_link_to_nothing_names_the_file_it_lacks(tmp_path: Path) -> None:
    """Not 'no such file' for a name that is there: the link and where it leads."""
    given = tmp_path / "run.json"
    given.symlink_to(tmp_path / "moved" / "run.json")
    with pytest.raises(MissingFileError) as error:
        load(given)
    lacked = os.path.realpath(tmp_path / "moved" / "run.json")
    assert str(error.value) == f"{given}: a link to {lacked}, which does not exist"


@pytest.mark.parametrize("text", ['"' + '\\"' * 200_000, '"' + '\\"' * 200_000 + "\\",
                                  '"a"b"' * 100_000])
def test_a_string_never_closed_is_counted_in_one_pass(tmp_path: Path, text: str) -> None:
    """Escaped quotes never closed: counting the structure outside strings scanned the rest of
    the text from each quote (40 KB took 12 s, the size limit would never end); the file is
    refused as not JSON in moments."""
    start = time.monotonic()
    assert json_counts(text) == (0, 0)
    path = tmp_path / "quotes.json"
    path.write_text(text)
    with pytest.raises(GpubenchJsonError):
        load(path)
    assert time.monotonic() - start < 5.0


def test_a_repeated_key_compares_its_own_values_alone(tmp_path: Path) -> None:
    """Repeated keys at every level of a deep object around a long string: the repeated values
    alone are compared (each level wrote its whole subtree out: 5 min for 30 MB), and the file
    is read within moments."""
    path = tmp_path / "repeated.json"
    path.write_text('{"a": 1, "a": 1, "x": ' * 200 + '"' + "A" * (8 << 20) + '"' + "}" * 200)
    start = time.monotonic()
    with pytest.raises(GpubenchJsonError, match="no 'benchmarks'"):
        load(path)
    assert time.monotonic() - start < 10.0
    with pytest.raises(DuplicateKeyError, match="appears twice in one object"):
        json_loads('{"a": 1, "a": 2}')
    assert json_loads('{"a": [1], "b": 2, "a": [1]}') == {"a": [1], "b": 2}


@pytest.mark.parametrize("form", list(COMPRESSORS))
def test_a_compressed_result_is_read_as_the_json_it_holds(tmp_path: Path, form: str) -> None:
    """By its content, whatever its name, in streams as `gzip -c a >> b` joins them, and through
    a pipe as from a file."""
    compress = COMPRESSORS[form]
    text = json.dumps(document(launch_run("driver", "submit", 0, [2.0, 2.1, 1.9]))).encode()
    plain = load(write_json(tmp_path / "r.json", json.loads(text)))
    half = len(text) // 2
    for name, packed in (("r.json.packed", compress(text)),
                         ("r.json", compress(text[:half]) + compress(text[half:]))):
        path = tmp_path / "packed" / name
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(packed)
        read = load(path)
        assert read.context == plain.context
        assert {n: list(b.repetition_values()) for n, b in read.benchmarks.items()} == {
            n: list(b.repetition_values()) for n, b in plain.benchmarks.items()}
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_bytes, args=(compress(text),), daemon=True)
    writer.start()
    assert list(load(fifo).benchmarks) == list(plain.benchmarks)
    writer.join()


@pytest.mark.parametrize("form", list(COMPRESSORS))
def test_a_compression_bomb_is_refused_within_the_bound(tmp_path: Path, form: str) -> None:
    """A small file that unpacks to 1 GiB: refused having held no more than the bound's worth."""
    stream = COMPRESSORS[form](bytes(64 * 2**20))
    path = tmp_path / "bomb.json"
    path.write_bytes(stream * 16)
    tracemalloc.start()
    try:
        with pytest.raises(TooLargeError) as error:
            read_file(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(error.value) == (f"{path}: more than 32 MiB once unpacked, the largest result "
                                "file the scripts read")
    assert peak < 2 * MAX_RESULT_BYTES
