"""Build gpubench-shaped Google Benchmark JSON documents for tests.

Entries follow what Google Benchmark 1.8 writes: an "iteration" entry per repetition and,
with two or more repetitions, mean/median/stddev/cv "aggregate" entries named
run_name + "_" + aggregate_name. `with_repetitions` and `scaled` reshape a committed result
(a subset of its repetitions, one run made slower) with its aggregates recomputed to match.
"""

import bz2
import gzip
import json
import lzma
import sys
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gpubench_tools.reading.bounded_read import MAX_RESULT_BYTES
from gpubench_tools.reading.facts import declared_facts
from gpubench_tools.reading.result_file import read_json

Values = float | Sequence[float]


def _stddev(values: np.ndarray) -> float:
    """Google Benchmark's sample standard deviation: 0 for one value, for which it is undefined."""
    return float(np.std(values, ddof=1)) if values.size > 1 else 0.0


_AGGREGATES: dict[str, Callable[[np.ndarray], float]] = {
    "mean": np.mean,
    "median": np.median,
    "stddev": _stddev,
    # Google Benchmark 1.8 writes 0 for the cv of values whose mean is 0 (host_timed of GPU time).
    "cv": lambda v: _stddev(v) / np.mean(v) if np.mean(v) else 0.0,
}


def run_entries(name: str, samples: Sequence[dict[str, float]], *, time_unit: str = "us",
                aggregates_only: bool = False,
                counters: dict[str, float] | None = None) -> list[dict[str, Any]]:
    """Entries of one run; each sample holds real_time (in time_unit) and counters, and
    `counters` (gpubench's noise_pct, host_timed) are added to every sample."""
    samples = [{**s, **(counters or {})} for s in samples]
    n = len(samples)
    common = {"run_name": name, "repetitions": n, "threads": 1, "time_unit": time_unit}
    iterations = [
        {"name": name, "run_type": "iteration", "repetition_index": i, "iterations": 1000,
         **common, "cpu_time": s["real_time"], **s}
        for i, s in enumerate(samples)
    ]
    if n < 2:
        return iterations
    aggregates = aggregate_entries(iterations)
    return aggregates if aggregates_only else iterations + aggregates


def aggregate_entries(iterations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Google Benchmark's mean/median/stddev/cv entries over the iteration entries of a run: of
    every figure any of them holds, over those that hold it."""
    first, n = iterations[0], len(iterations)
    name = first["run_name"]
    keys = dict.fromkeys(key for it in iterations for key, value in it.items()
                         if isinstance(value, (int, float)) and not isinstance(value, bool))
    aggregates = []
    for agg_name, statistic in _AGGREGATES.items():
        entry = {"name": f"{name}_{agg_name}", "run_name": name, "run_type": "aggregate",
                 "repetitions": n, "threads": first.get("threads", 1),
                 "aggregate_name": agg_name,
                 "aggregate_unit": "percentage" if agg_name == "cv" else "time",
                 "iterations": n, "time_unit": first.get("time_unit", "ns")}
        for key in keys:
            if key not in entry and key not in _NOT_AGGREGATED:
                entry[key] = float(statistic(np.array([it[key] for it in iterations
                                                       if key in it])))
        aggregates.append(entry)
    return aggregates


def lacking(entries: list[dict[str, Any]], index: int, key: str) -> list[dict[str, Any]]:
    """A run's entries whose repetition `index` lacks `key` (a counter written only where its
    read succeeded), its aggregates taken over the repetitions that hold it, as Google
    Benchmark takes them."""
    iterations = [dict(e) for e in entries if e.get("run_type") == "iteration"]
    del iterations[index][key]
    return iterations + aggregate_entries(iterations)


_NOT_AGGREGATED = {"repetition_index", "name", "family_index", "per_family_instance_index"}


def with_repetitions(doc: dict[str, Any], keep: Callable[[int], bool],
                     aggregates_only: bool = False) -> dict[str, Any]:
    """A copy of a real result holding only the repetitions whose repetition_index `keep`
    accepts, with the aggregates recomputed over them (as if that run had made only those)."""
    runs: dict[str, list[dict[str, Any]]] = {}
    for entry in doc["benchmarks"]:
        if entry.get("run_type") == "iteration" and keep(entry["repetition_index"]):
            runs.setdefault(entry["run_name"], []).append(dict(entry))
    entries = []
    for iterations in runs.values():
        for index, entry in enumerate(iterations):
            entry.update(repetition_index=index, repetitions=len(iterations))
        aggregates = aggregate_entries(iterations) if len(iterations) >= 2 else []
        entries += aggregates if aggregates_only and aggregates else iterations + aggregates
    return {**doc, "benchmarks": entries}


def figure_directions(doc: dict[str, Any]) -> dict[str, bool]:
    """Each figure the file's family facts declare (facts.declared_facts), by the key
    the loader gives it, and whether higher is better; empty for a file without facts."""
    facts = declared_facts(Path("document"), doc["context"])
    return {figure.key: figure.bigger_is_better
            for family in facts.values() for figure in family.figures}


def scaled(doc: dict[str, Any], run_name: str, factor: float) -> dict[str, Any]:
    """A copy of `doc` in which one run's every repetition took `factor` times as long: times
    and every figure where lower is better multiplied, rates and every figure where higher is
    better divided; its aggregates recomputed."""
    higher_better = {"bytes_per_second": True, "items_per_second": True, "pct_of_peak": True,
                     "real_time": False, "cpu_time": False, "us_per_launch": False,
                     "us_per_copy": False, **figure_directions(doc)}
    iterations = []
    for entry in doc["benchmarks"]:
        if entry.get("run_name") == run_name and entry.get("run_type") == "iteration":
            entry = dict(entry)
            for key, higher in higher_better.items():
                if key in entry:
                    entry[key] = entry[key] / factor if higher else entry[key] * factor
            iterations.append(entry)
    if not iterations:
        raise KeyError(f"no iterations of {run_name!r}")
    others = [e for e in doc["benchmarks"] if e.get("run_name") != run_name]
    return {**doc, "benchmarks": others + iterations + aggregate_entries(iterations)}


def with_counters(doc: dict[str, Any], counters: Callable[[str], dict[str, float]]
                  ) -> dict[str, Any]:
    """A copy of a real result whose every iteration entry also holds counters(run_name), as
    gpubench writes noise_pct and host_timed; its aggregates recomputed."""
    runs: dict[str, list[dict[str, Any]]] = {}
    for entry in doc["benchmarks"]:
        if entry.get("run_type") == "iteration":
            runs.setdefault(entry["run_name"], []).append(
                {**entry, **counters(entry["run_name"])})
    entries = []
    for iterations in runs.values():
        entries += iterations + (aggregate_entries(iterations) if len(iterations) >= 2 else [])
    return {**doc, "benchmarks": entries}


def load_json(path: Path) -> dict[str, Any]:
    """The JSON document of a result file, gzip-compressed or not, as the scripts read it."""
    return read_json(path)


def copy_run(direction: str, memory: str, api: str, size_bytes: int, gbps: Values,
             **kw: Any) -> list[dict[str, Any]]:
    samples = [{"real_time": size_bytes / (g * 1e9) * 1e6, "bytes_per_second": g * 1e9,
                "us_per_copy": size_bytes / (g * 1e9) * 1e6} for g in np.atleast_1d(gbps)]
    return run_entries(f"copy/{direction}/{memory}/{api}/{size_bytes}/manual_time", samples, **kw)


def peer_run(engine: str, mode: str, source: int, destination: int, size_bytes: int,
             gbps: Values, **kw: Any) -> list[dict[str, Any]]:
    samples = [{"real_time": size_bytes / (g * 1e9) * 1e6, "bytes_per_second": g * 1e9,
                "us_per_copy": size_bytes / (g * 1e9) * 1e6} for g in np.atleast_1d(gbps)]
    return run_entries(f"peer/{engine}/{mode}/{source}to{destination}/{size_bytes}/manual_time",
                       samples, **kw)


def launch_run(path: str, measure: str, params_bytes: int, us: Values,
               **kw: Any) -> list[dict[str, Any]]:
    samples = [{"real_time": u, "us_per_launch": u} for u in np.atleast_1d(us)]
    return run_entries(f"launch/{path}/{measure}/params:{params_bytes}/manual_time", samples,
                       **kw)


def module_run(what: str, us: Values, **kw: Any) -> list[dict[str, Any]]:
    return run_entries(f"launch/module/{what}/manual_time",
                       [{"real_time": u} for u in np.atleast_1d(us)], **kw)


def saxpy_run(variant: str, n: int, gbps: Values, peak_gbps: float,
              **kw: Any) -> list[dict[str, Any]]:
    bytes_moved = 12 * n  # read x and y, write y, float32
    samples = []
    for g in np.atleast_1d(gbps):
        seconds = bytes_moved / (g * 1e9)
        samples.append({"real_time": seconds * 1e6, "bytes_per_second": g * 1e9,
                        "items_per_second": n / seconds, "pct_of_peak": 100 * g / peak_gbps,
                        "peak_bytes_per_second": peak_gbps * 1e9})
    return run_entries(f"saxpy/{variant}/{n}/manual_time", samples, **kw)


def copy_model_gbps(size_bytes: int, t0_us: float, bandwidth_gbps: float) -> float:
    """Bandwidth of a copy following t(s) = t0 + s/B."""
    return size_bytes / (t0_us * 1e-6 + size_bytes / (bandwidth_gbps * 1e9)) / 1e9


def full_suite(t0_us: float = 8.0, bandwidth_gbps: float = 50.0) -> list[dict[str, Any]]:
    """One run of every family, copies following the latency-bandwidth model exactly."""
    entries = []
    for direction in ("HtoD", "DtoH"):
        for size in 4 ** np.arange(5, 15):
            gbps = copy_model_gbps(int(size), t0_us, bandwidth_gbps)
            entries += copy_run(direction, "pinned", "async", int(size), gbps)
    for path in ("runtime", "driver", "graph"):
        for measure, base_us in (("submit", 2.0), ("roundtrip", 6.0)):
            for params in (0, 256, 4096):
                entries += launch_run(path, measure, params, base_us + params / 4096)
    entries += module_run("cubin_load", 150.0) + module_run("ptx_jit", 9000.0)
    for variant in ("runtime", "vec4", "cublas"):
        for n in 4 ** np.arange(8, 14):
            entries += saxpy_run(variant, int(n), 3000.0 * n / (n + 4**10), peak_gbps=3900.0)
    return entries


def document(entries: list[dict[str, Any]], gpu_name: str = "NVIDIA H200",
             driver_version: str = "570.86.15", **context: str) -> dict[str, Any]:
    return {
        "context": {
            "date": "2025-01-01T00:00:00+00:00", "host_name": "gpu-runner",
            "executable": "build/gpubench", "num_cpus": 16, "mhz_per_cpu": 2000,
            "library_build_type": "release", "gpu_name": gpu_name, "gpu_uuid": "GPU-0000",
            "compute_capability": "9.0", "sm_count": "132", "driver_version": driver_version,
            "cuda_runtime_version": "12080", "gpubench_version": "0.1.0", **context,
        },
        "benchmarks": entries,
    }


def recorded(doc: dict[str, Any]) -> dict[str, Any]:
    """`doc` as a baseline recorded as gpubench-tools record records one, in separate runs
    (context merged_runs): what gpubench-tools compare's regression check takes as BASE."""
    return dict(doc, context={"merged_runs": 5, **doc["context"]})


def recorded_baseline(entries: list[dict[str, Any]], **context: Any) -> dict[str, Any]:
    """A document of `entries` recorded in separate runs (see `recorded`)."""
    return recorded(document(entries, **context))


def write_json(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc, indent=1))
    return path


# Unusable result files, one per kind of problem, for the loader's and the scripts' tests:
# (id, what the file holds, the GpubenchJsonError subclass load raises). The content is text,
# bytes, MISSING (no file) or DIRECTORY (a folder at the path).
MISSING, DIRECTORY = object(), object()


def _good_entry(**fields: Any) -> dict[str, Any]:
    entry = launch_run("driver", "submit", 0, 2.0)[0]
    entry.update(fields)
    return entry


def _with_entry(**fields: Any) -> str:
    return json.dumps(document([_good_entry(**fields)]))


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def _raw_real_time(token: str) -> str:
    """A document whose real_time is `token` verbatim (NaN, 1e999, a 400-digit integer)."""
    return _with_entry(real_time=123.25).replace("123.25", token)


def _aggregate_edited(aggregate: str, **fields: float) -> list[dict[str, Any]]:
    """Three repetitions of a launch (2, 3 and 7 µs) whose `aggregate` is given `fields`."""
    entries = launch_run("driver", "submit", 0, [2.0, 3.0, 7.0])
    next(e for e in entries if e.get("aggregate_name") == aggregate).update(fields)
    return entries


def bad_results() -> list[tuple[str, Any, str]]:
    good = document(launch_run("driver", "submit", 0, 2.0))
    failed = _good_entry(error_occurred=True, error_message="no GPU")
    return [
        ("missing file", MISSING, "MissingFileError"),
        ("directory", DIRECTORY, "MissingFileError"),
        ("empty file", "", "EmptyFileError"),
        ("whitespace only", " \n\t\n", "EmptyFileError"),
        ("invalid JSON", "{not json", "InvalidJsonError"),
        ("truncated JSON", json.dumps(good)[:-20], "InvalidJsonError"),
        ("not UTF-8", b"\xff\xfe{\x00}", "InvalidJsonError"),
        ("deeply nested JSON", _nested(100_000), "InvalidJsonError"),
        ("deeply nested field", _with_entry(label=0).replace("0}", _nested(100_000) + "}"),
         "InvalidJsonError"),
        # Python >= 3.10.7 refuses to parse such an integer; before, float() overflows.
        ("integer past the digit limit", _raw_real_time("9" * 5000),
         "InvalidJsonError" if hasattr(sys, "get_int_max_str_digits") else "BadValueError"),
        ("JSON list", json.dumps([1, 2]), "NotGpubenchError"),
        ("JSON string", json.dumps("gpubench"), "NotGpubenchError"),
        ("JSON null", "null", "NotGpubenchError"),
        ("JSON number", "5", "NotGpubenchError"),
        ("no context", json.dumps({"benchmarks": []}), "NotGpubenchError"),
        ("no gpubench_version", json.dumps({"context": {}, "benchmarks": []}),
         "NotGpubenchError"),
        ("benchmarks an object", json.dumps({**good, "benchmarks": {}}), "WrongTypeError"),
        ("context a list", json.dumps({**good, "context": []}), "WrongTypeError"),
        ("context a string", json.dumps({**good, "context": "H200"}), "WrongTypeError"),
        ("gpu_name a number", json.dumps({**good, "context": {**good["context"],
                                                               "gpu_name": 5}}),
         "WrongTypeError"),
        ("gpubench_version null", json.dumps({**good, "context": {**good["context"],
                                                                  "gpubench_version": None}}),
         "WrongTypeError"),
        ("entry a number", json.dumps({**good, "benchmarks": [3]}), "MalformedResultError"),
        ("entry without name", json.dumps({**good, "benchmarks": [{"real_time": 1.0}]}),
         "MalformedResultError"),
        ("name a number", _with_entry(name=5), "WrongTypeError"),
        ("run_name a number", _with_entry(run_name=5), "WrongTypeError"),
        ("time_unit an object", _with_entry(time_unit={}), "WrongTypeError"),
        ("run_type a list", _with_entry(run_type=["iteration"]), "WrongTypeError"),
        ("real_time a string", _with_entry(real_time="2.0"), "WrongTypeError"),
        ("real_time '+nan'", _with_entry(real_time="+nan"), "WrongTypeError"),
        ("us_per_launch true", _with_entry(us_per_launch=True), "WrongTypeError"),
        ("bytes_per_second null", _with_entry(bytes_per_second=None), "WrongTypeError"),
        ("repetitions a string", _with_entry(repetitions="5"), "WrongTypeError"),
        ("iterations negative", _with_entry(iterations=-1), "WrongTypeError"),
        ("iterations past int64", _with_entry(iterations=2**64), "WrongTypeError"),
        ("error_occurred a string", _with_entry(error_occurred="yes"), "WrongTypeError"),
        ("unknown time_unit", _with_entry(time_unit="fortnights"), "MalformedResultError"),
        ("time_unit sec", _with_entry(time_unit="sec"), "MalformedResultError"),
        ("no time_unit", json.dumps({**good, "benchmarks": [
            {k: v for k, v in _good_entry().items() if k != "time_unit"}]}),
         "MalformedResultError"),
        ("a median stating a figure no repetition holds",
         json.dumps({**good, "benchmarks": _aggregate_edited("median", bytes_per_second=5e9)}),
         "BadValueError"),
        ("a mean unlike its repetitions' mean",
         json.dumps({**good, "benchmarks": _aggregate_edited("mean", real_time=2.0)}),
         "BadValueError"),
        ("unknown run_type", _with_entry(run_type="warmup"), "MalformedResultError"),
        ("no real_time", json.dumps({**good, "benchmarks": [
            {k: v for k, v in _good_entry().items() if k != "real_time"}]}),
         "MalformedResultError"),
        ("NaN", _raw_real_time("NaN"), "BadValueError"),
        ("Infinity", _raw_real_time("Infinity"), "BadValueError"),
        ("-Infinity", _raw_real_time("-Infinity"), "BadValueError"),
        ("1e999", _raw_real_time("1e999"), "BadValueError"),
        # JSON leaves open which of two values of one key counts; Python would keep the last.
        ("real_time given twice", _raw_real_time('2.0, "real_time": 5000.0'), "InvalidJsonError"),
        ("gpu_name given twice", json.dumps(good).replace(
            '"gpu_name": ', '"gpu_name": "NVIDIA A100", "gpu_name": ', 1), "InvalidJsonError"),
        ("real_time 2 and 2.0", _raw_real_time('2, "real_time": 2.0'), "InvalidJsonError"),
        ("NaN counter", _with_entry(us_per_launch=123.25).replace("123.25", "NaN"),
         "BadValueError"),
        ("integer too large for a float", _raw_real_time("9" * 400), "BadValueError"),
        ("zero time", _with_entry(real_time=0.0), "BadValueError"),
        ("negative noise_pct", _with_entry(noise_pct=-1.0), "BadValueError"),
        ("host_timed 2", _with_entry(host_timed=2), "BadValueError"),
        ("negative bandwidth", _with_entry(bytes_per_second=-5e9), "BadValueError"),
        ("no benchmarks", json.dumps({**good, "benchmarks": []}), "NoBenchmarksError"),
        ("every benchmark failed", json.dumps({**good, "benchmarks": [failed]}),
         "NoBenchmarksError"),
        ("same entry twice", json.dumps({**good, "benchmarks": [_good_entry(), _good_entry()]}),
         "DuplicateBenchmarkError"),
        ("same run twice without indices", json.dumps({**good, "benchmarks": [
            {"name": "launch/x/submit/params:0", "real_time": 1.0, "time_unit": "us"},
            {"name": "launch/x/submit/params:0", "real_time": 2.0, "time_unit": "us"}]}),
         "DuplicateBenchmarkError"),
        ("same name once suffixes are stripped", json.dumps({**good, "benchmarks": [
            _good_entry(), _good_entry(name="launch/driver/submit/params:0/real_time",
                                       run_name="launch/driver/submit/params:0/real_time")]}),
         "DuplicateBenchmarkError"),
        ("same aggregate twice", json.dumps({**good, "benchmarks": 2 * launch_run(
            "driver", "submit", 0, [2.0, 2.1], aggregates_only=True)}),
         "DuplicateBenchmarkError"),
        *_bad_compressed(json.dumps(good).encode()),
    ]


# How a test writes each compressed form a result may take (bounded_read.compression).
COMPRESSORS = {"gzip": gzip.compress, "xz": lzma.compress, "bzip2": bz2.compress}


def _bad_compressed(good: bytes) -> list[tuple[str, bytes, str]]:
    """Compressed files, read by their content whatever their name, that hold no usable
    result."""
    bad = []
    for form, compress in COMPRESSORS.items():
        packed = compress(good)
        middle = len(packed) // 2
        # 1 MiB of spaces, 33 times, then the result: kilobytes that unpack past 32 MiB.
        spaces = compress(b" " * 2**20)
        bad += [
            (f"{form} cut short", packed[:-10], "InvalidJsonError"),
            (f"{form} damaged", packed[:middle] + bytes(b ^ 0xFF for b in packed[middle:middle + 8])
             + packed[middle + 8:], "InvalidJsonError"),
            (f"{form} of no JSON", compress(b"{not json"), "InvalidJsonError"),
            (f"{form} of nothing", compress(b""), "EmptyFileError"),
            (f"{form} unpacking past the limit",
             spaces * (MAX_RESULT_BYTES // 2**20 + 1) + packed, "TooLargeError"),
        ]
    gzip_packed = gzip.compress(good)
    return bad + [
        ("xz naming a 2 GiB dictionary", _xz_with_dictionary_code(lzma.compress(good), 38),
         "InvalidJsonError"),
        ("gzip with a wrong CRC", gzip_packed[:-8] + bytes(b ^ 0xFF for b in gzip_packed[-8:-4])
         + gzip_packed[-4:], "InvalidJsonError"),
        ("gzip then garbage", gzip_packed + b"not gzip", "InvalidJsonError"),
    ]


def _xz_with_dictionary_code(packed: bytes, code: int) -> bytes:
    """An xz stream of one LZMA2 block whose block header names another dictionary size:
    (2 | code & 1) << (code // 2 + 11) bytes (38: 2 GiB), its header's CRC32 made anew. The
    header follows the 12-byte stream header: its size, flags, the filter's ID (0x21) and
    properties size, the dictionary byte, padding, then the CRC32 of the bytes before it."""
    start = 12
    end = start + (packed[start] + 1) * 4 - 4
    assert packed[start + 2:start + 4] == b"\x21\x01"
    header = packed[start:start + 4] + bytes([code]) + packed[start + 5:end]
    return packed[:start] + header + zlib.crc32(header).to_bytes(4, "little") + packed[end + 4:]


def write_bad(path: Path, content: Any) -> Path:
    if content is DIRECTORY:
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not MISSING:
        path.write_text(content)
    return path
