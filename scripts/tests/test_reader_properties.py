"""What a verdict reads of a benchmark is what its repetitions give, and its times are read in the
unit the file names: properties of the loader (reading/result_file.py, reading/summaries.py) over
generated runs, their aggregates computed as Google Benchmark computes them.

- An aggregate that agrees with its repetitions is read; the figure is their median.
- One changed beyond rounding, or stating a figure no repetition holds, is refused in one line
  naming the benchmark and the figure.
- Times are read in the entry's time_unit; an entry without one, or with one Google Benchmark
  does not write, is refused in one line.
"""

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gbench_builder import document
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpubench_tools.reading.errors import BadValueError, GpubenchJsonError, MalformedResultError
from gpubench_tools.reading.result_file import loads

PROPERTIES = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                      suppress_health_check=[HealthCheck.too_slow])

RUN = "copy/HtoD/pinned/async/4096/manual_time"
BENCHMARK = "copy/HtoD/pinned/async/4096"
US_PER_UNIT = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


# Google Benchmark's statistics (src/statistics.cc), in its order of operations.
def gb_mean(values: list[float]) -> float:
    total = 0.0
    for value in values:
        total += value
    return total * (1.0 / len(values))


def gb_median(values: list[float]) -> float:
    if len(values) < 3:
        return gb_mean(values)
    ordered = sorted(values)
    middle = len(values) // 2
    if len(values) % 2:
        return ordered[middle]
    return (ordered[middle] + ordered[middle - 1]) / 2.0


def gb_stddev(values: list[float]) -> float:
    if len(values) == 1:
        return 0.0
    mean = gb_mean(values)
    squares = 0.0
    for value in values:
        squares += value * value
    variance = len(values) / (len(values) - 1.0) * (squares * (1.0 / len(values)) - mean * mean)
    return math.sqrt(variance) if variance > 0 else 0.0


def gb_cv(values: list[float]) -> float:
    if len(values) < 2:
        return 0.0
    mean, stddev = gb_mean(values), gb_stddev(values)
    if mean == 0:
        return math.inf if stddev else math.nan
    return stddev / mean


STATISTICS = {"mean": gb_mean, "median": gb_median, "stddev": gb_stddev, "cv": gb_cv}


# A time in µs, a rate, and a counter of either sign (gpubench's clock_drift_ns): each within the
# loader's range, the time and rate > 0.
_TIME_US = st.floats(1e-3, 1e7)
_RATE = st.floats(1e3, 1e13)
_SIGNED = st.integers(-1000, 1000).map(float)


@st.composite
def runs(draw: st.DrawFn) -> dict[str, Any]:
    """One run's repetitions as the loader reads them (times in µs), each holding real_time and
    cpu_time, and bytes_per_second and clock_drift_ns or not (a counter written only where its
    read succeeded); and the time_unit the file writes them in."""
    count = draw(st.integers(2, 7))
    reps = []
    for _ in range(count):
        time_us = draw(_TIME_US)
        rep = {"real_time": time_us, "cpu_time": time_us * draw(st.floats(0.5, 2.0))}
        if draw(st.booleans()):
            rep["bytes_per_second"] = draw(_RATE)
        if draw(st.booleans()):
            rep["clock_drift_ns"] = draw(_SIGNED)
        reps.append(rep)
    return {"repetitions": reps, "unit": draw(st.sampled_from(sorted(US_PER_UNIT)))}


def entries(run: dict[str, Any]) -> list[dict[str, Any]]:
    """The run as Google Benchmark writes it: an iteration entry per repetition, its times in
    the run's unit, then the mean, median, stddev and cv of every figure any repetition holds,
    over those that hold it."""
    unit = run["unit"]
    written = [{key: value / US_PER_UNIT[unit] if key.endswith("_time") else value
                for key, value in rep.items()} for rep in run["repetitions"]]
    count = len(written)
    common = {"run_name": RUN, "repetitions": count, "threads": 1, "time_unit": unit}
    iterations = [{"name": RUN, "run_type": "iteration", "repetition_index": index,
                   "iterations": 1000, **common, **rep} for index, rep in enumerate(written)]
    keys = list(dict.fromkeys(key for rep in written for key in rep))
    aggregates = []
    for name, statistic in STATISTICS.items():
        entry = {"name": f"{RUN}_{name}", "run_type": "aggregate", "aggregate_name": name,
                 "aggregate_unit": "percentage" if name == "cv" else "time", "iterations": count,
                 **common}
        for key in keys:
            entry[key] = statistic([rep[key] for rep in written if key in rep])
        aggregates.append(entry)
    return iterations + aggregates


def text(benchmarks: list[dict[str, Any]]) -> str:
    return json.dumps(document(benchmarks))


def loaded(benchmarks: list[dict[str, Any]]):
    return loads(text(benchmarks), Path("r.json")).benchmarks[BENCHMARK]


def held(run: dict[str, Any], key: str) -> list[float]:
    return [rep[key] for rep in run["repetitions"] if key in rep]


@PROPERTIES
@given(run=runs())
def test_aggregates_that_agree_with_their_repetitions_are_read(run: dict[str, Any]) -> None:
    bench = loaded(entries(run))
    for key, loader_key in (("real_time", "real_time_us"), ("bytes_per_second", None),
                            ("clock_drift_ns", None)):
        values = held(run, key)
        if values:
            assert bench.values[loader_key or key] == pytest.approx(np.median(values),
                                                                    rel=1e-12, abs=1e-12)
    assert bench.value() == pytest.approx(float(np.median(bench.repetition_values())),
                                          rel=1e-12)


def _changed(run: dict[str, Any], draw: st.DrawFn) -> tuple[list[dict[str, Any]], str, str]:
    """The run's entries with one figure of one aggregate moved beyond rounding: by at least
    1e-4 of the largest value it summarises, up or down."""
    benchmarks = entries(run)
    aggregates = [e for e in benchmarks if e["run_type"] == "aggregate"]
    entry = draw(st.sampled_from(aggregates))
    keys = [k for k in ("real_time", "cpu_time", "bytes_per_second", "clock_drift_ns")
            if k in entry and math.isfinite(entry[k])]
    key = draw(st.sampled_from(keys))
    values = [rep[key] for rep in benchmarks if rep["run_type"] == "iteration" and key in rep]
    scale = max(abs(v) for v in values) or 1.0
    step = draw(st.floats(1e-4, 10.0)) * draw(st.sampled_from([-1, 1])) * scale
    if entry["aggregate_name"] == "cv":
        mean = gb_mean(values)
        if not mean:  # a cv of a mean of 0 is not read
            step = 0.0
        else:
            entry[key] = (gb_stddev(values) + abs(step)) / mean
    else:
        entry[key] += step
    if step == 0.0:
        entry = next(e for e in aggregates if e["aggregate_name"] == "median")
        key = "real_time"
        entry[key] *= 2
    return benchmarks, entry["aggregate_name"], key


@PROPERTIES
@given(run=runs(), data=st.data())
def test_an_aggregate_unlike_its_repetitions_is_refused(run: dict[str, Any],
                                                        data: st.DataObject) -> None:
    benchmarks, aggregate, key = _changed(run, data.draw)
    with pytest.raises(BadValueError) as error:
        loaded(benchmarks)
    message = str(error.value)  # the run's name, or its aggregate entry's where it is no time
    assert f"benchmark '{RUN}" in message and repr(key) in message and "\n" not in message


@PROPERTIES
@given(run=runs(), data=st.data(),
       key=st.sampled_from(["bytes_per_second", "clock_drift_ns", "us_per_copy", "errors"]),
       value=st.floats(1.0, 1e12))
def test_an_aggregate_stating_a_figure_no_repetition_holds_is_refused(
        run: dict[str, Any], data: st.DataObject, key: str, value: float) -> None:
    """However the repetitions differ from it (2× slower beside a median of the baseline's
    bandwidth): the figure the verdict would read was measured by none of them."""
    for rep in run["repetitions"]:
        rep.pop(key, None)
    benchmarks = entries(run)
    aggregate = data.draw(st.sampled_from(["mean", "median", "stddev", "cv"]))
    next(e for e in benchmarks if e.get("aggregate_name") == aggregate)[key] = value
    with pytest.raises(BadValueError) as error:
        loaded(benchmarks)
    assert str(error.value) == (
        f"r.json: benchmark {RUN!r}: its {aggregate} aggregate of {key!r} is {value:g}, which "
        f"none of its {len(run['repetitions'])} repetitions holds")


@PROPERTIES
@given(run=runs(), data=st.data())
def test_times_are_read_in_the_unit_the_file_names(run: dict[str, Any],
                                                   data: st.DataObject) -> None:
    bench = loaded(entries(run))
    assert bench.values["real_time_us"] == pytest.approx(
        float(np.median(held(run, "real_time"))), rel=1e-12)
    benchmarks = entries(run)
    entry = data.draw(st.sampled_from([e for e in benchmarks
                                       if e.get("aggregate_name") != "cv"]))
    del entry["time_unit"]
    with pytest.raises(MalformedResultError) as error:
        loaded(benchmarks)
    assert str(error.value) == (
        f"r.json: benchmark {entry['name']!r}: no 'time_unit', so its times cannot be read "
        "(Google Benchmark writes one of ns, us, ms, s)")


@PROPERTIES
@given(run=runs(), data=st.data(),
       unit=st.one_of(st.text(max_size=6), st.sampled_from(["sec", "µs", "NS", "min", " us"]))
       .filter(lambda u: u not in US_PER_UNIT))
def test_a_time_unit_google_benchmark_does_not_write_is_refused(
        run: dict[str, Any], data: st.DataObject, unit: str) -> None:
    benchmarks = entries(run)
    entry = data.draw(st.sampled_from(benchmarks))
    entry["time_unit"] = unit
    with pytest.raises(MalformedResultError) as error:
        loaded(benchmarks)
    assert f"benchmark {entry['name']!r}: time_unit " in str(error.value)
    assert "none Google Benchmark writes (ns, us, ms, s)" in str(error.value)


def test_a_cv_aggregate_needs_no_time_unit() -> None:
    """A cv is a ratio: Google Benchmark writes a time_unit beside it that nothing reads."""
    benchmarks = entries({"repetitions": [{"real_time": 2.0}, {"real_time": 3.0}],
                          "unit": "us"})
    del next(e for e in benchmarks if e.get("aggregate_name") == "cv")["time_unit"]
    assert loaded(benchmarks).cv["real_time_us"] == pytest.approx(gb_cv([2.0, 3.0]))


def test_aggregates_only_are_read_as_they_are() -> None:
    """Without repetitions nothing can contradict them."""
    benchmarks = [e for e in entries({"repetitions": [{"real_time": 2.0}, {"real_time": 4.0}],
                                      "unit": "us"}) if e["run_type"] == "aggregate"]
    next(e for e in benchmarks if e["aggregate_name"] == "median")["bytes_per_second"] = 1e9
    assert loaded(benchmarks).values["bytes_per_second"] == 1e9


def test_the_found_case_a_median_of_the_baseline_beside_slower_repetitions(
        run_script, tmp_path: Path) -> None:
    """Repetitions 2× slower that lack bytes_per_second, beside a median stating the
    baseline's: compare refuses the file rather than say OK, --missing-fails or not."""
    base = {"repetitions": [{"real_time": t, "bytes_per_second": 4096 / t * 1e6}
                            for t in (1.0, 1.1, 1.2)], "unit": "us"}
    slower = {"repetitions": [{"real_time": 2 * t} for t in (1.0, 1.1, 1.2)], "unit": "us"}
    benchmarks = entries(slower)
    for entry in benchmarks:
        if entry["run_type"] == "aggregate" and entry["aggregate_name"] in ("mean", "median"):
            entry["bytes_per_second"] = 4096 / 1.1 * 1e6
    (tmp_path / "base.json").write_text(text(entries(base)))
    (tmp_path / "new.json").write_text(text(benchmarks))
    proc = run_script("compare", tmp_path / "base.json", tmp_path / "new.json",
                      "--missing-fails")
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        f"gpubench-tools compare: {tmp_path / 'new.json'}: benchmark {RUN!r}: its median "
        "aggregate of 'bytes_per_second' is 3.72364e+09, which none of its 3 repetitions "
        "holds\n")


def test_loading_refuses_with_the_loaders_error_class() -> None:
    """Every refusal here is a GpubenchJsonError, which each subcommand reports in one line."""
    assert issubclass(BadValueError, GpubenchJsonError)
    assert issubclass(MalformedResultError, GpubenchJsonError)
