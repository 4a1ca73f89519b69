"""Load gpubench results: Google Benchmark JSON (--benchmark_out_format=json) from gpubench.

Every subcommand reads results through `load` (result_file), so validation, name stripping and the
choice of the representative value per benchmark are made in one place. `load` accepts only what the
toolkit can use: a JSON object with a `context` object and a `benchmarks` list, no object giving a
key two different values, every field the toolkit reads of the type Google Benchmark writes, every
number 0 or between 1e-30 and 1e30 in size (a time in µs), every time in a unit Google Benchmark
writes and names, no benchmark twice, an aggregate only where it is what the repetitions beside it
give (reading/summaries.py), at least one successful benchmark.
Anything else raises a `GpubenchJsonError` whose str() is one line naming the file and the problem.

What a benchmark name means is read from the families' facts (docs/family-facts.md): the
context's `gpubench_families` where gpubench wrote it, else facts inferred from the benchmarks
by the rule that document states. `Benchmark.metric` is a benchmark's figure,
`Benchmark.panel_metrics` the figures the plots draw of it, `Benchmark.parts` its name read as
family, series, argument and device, `Result.families` the facts of each family the file holds:
no subcommand needs to know a family by name.

A result file is read as bounded_read reads any file a command is handed: at most MAX_RESULT_BYTES,
a FIFO without a writer not waited for; one compressed with gzip, xz or bzip2 (known by its first
bytes, whatever its name) is read as the JSON it holds, at most MAX_RESULT_BYTES of it too.
result_file.read_file says in reading/errors.py's errors what keeps one from being read.

What the subcommands share on the command line besides reading results is in cli/options.py
(their argument parser, the one-line report of reading/errors.py's errors) and
writing/outputs.py (their stdout and output file writers).
"""

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from gpubench_tools.reading.bounded_read import (
    COMPRESSED_ENDINGS,
    DAMAGED_STREAM,
    MAX_RESULT_BYTES,
    compression,
    dangling_link,
    read_bounded,
    unpacked,
)
from gpubench_tools.reading.errors import (
    BadValueError,
    DuplicateBenchmarkError,
    EmptyFileError,
    InvalidJsonError,
    MalformedResultError,
    MissingFileError,
    NoBenchmarksError,
    NotGpubenchError,
    TooLargeError,
    WrongTypeError,
)
from gpubench_tools.reading.facts import (
    KERNEL_SM_CLOCK,
    FamilyFacts,
    declared_facts,
    family_of,
    strip_gb_suffixes,
)
from gpubench_tools.reading.json_values import (
    LARGEST_MAGNITUDE,
    SMALLEST_MAGNITUDE,
    DuplicateKeyError,
    is_int,
    is_number,
    json_loads,
    kind_of,
    shown,
)
from gpubench_tools.reading.results import (
    HOST_REFERENCED,
    HOST_TIMED,
    NOISE_PCT,
    Benchmark,
    Result,
)
from gpubench_tools.reading.safe_text import one_line
from gpubench_tools.reading.summaries import AGGREGATES, check_aggregates

# The names of the result files a subcommand finds by listing a folder (gpubench-tools limits,
# gpubench-tools gallery): gpubench's JSON, and that JSON compressed (.json.gz, .json.xz,
# .json.bz2). A file named on the command line is read by its content whatever its name.
RESULT_SUFFIXES = (".json", *(".json" + ending for ending in COMPRESSED_ENDINGS))

# Google Benchmark's time units, each as a power of ten of nanoseconds.
NS_EXPONENT = {"ns": 0, "us": 3, "ms": 6, "s": 9}

_US_PER_TIME_UNIT = {unit: 10.0 ** (exponent - 3) for unit, exponent in NS_EXPONENT.items()}

_TIME_UNITS = ", ".join(NS_EXPONENT)

# Integer fields that describe the run rather than measure it.
_BOOKKEEPING = {
    "family_index", "per_family_instance_index", "repetitions", "repetition_index",
    "threads", "iterations",
}

_LARGEST_COUNT = 2**63 - 1  # Google Benchmark's counts are int64

# Fields the toolkit reads as text, and the measurements they read as numbers.
_STRING_FIELDS = ("name", "run_name", "run_type", "aggregate_name", "time_unit")

_MEASUREMENTS = ("real_time", "cpu_time", "bytes_per_second", "items_per_second",
                 "us_per_launch", "us_per_copy")

# A time or a rate of one run is > 0; a spread aggregate (stddev, cv) may be 0.
_POSITIVE = ("real_time", "bytes_per_second", "us_per_launch", "us_per_copy")

TIME_FIELDS = ("real_time", "cpu_time")  # in the entry's time_unit; the loader keeps them in µs

_SPREAD_AGGREGATES = {"stddev", "cv"}

# The most objects and lists, and values, a result may hold: above what MAX_RESULT_BYTES of gpubench
# runs hold (45 000 to 52 000 objects and lists, 1.1 million values), far below what that many bytes
# of `{}` or `0,` make (32 MiB of `{}` takes 0.86 GB to read). Within both, no file takes more than
# about 490 MB to read (docs/usage.md, "What the toolkit reads, and its limits"). Counted before
# parsing (json_counts).
MAX_CONTAINERS = 2**17

MAX_VALUES = 2**21

# A JSON string, or an unterminated one to the end of the text: one match from each opening
# quote, so a text of escaped quotes never closed is scanned once, not once per quote in it.
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\[\s\S][^"\\]*)*(?:"|\\?\Z)')

# Context keys the toolkit decides on; gpubench writes each as a string.
_CONTEXT_STRINGS = ("gpubench_version", "gpu_name", "driver_version", "cuda_runtime_version")

def load(path: str | Path, require_benchmarks: bool = True) -> Result:
    """Read and validate one gpubench result. With `require_benchmarks`, a file in which no
    benchmark succeeded raises NoBenchmarksError."""
    return load_with_document(path, require_benchmarks)[0]

def load_with_document(path: str | Path, require_benchmarks: bool = True
                       ) -> tuple[Result, dict[str, Any]]:
    """As `load`, with the JSON document the result was read from, for a subcommand that needs
    more of the file than a Result keeps: from the one read, since a pipe (`<(...)`) can be
    read only once."""
    path = Path(path)
    doc = read_json(path)
    return _validated(doc, path, require_benchmarks), doc

def read_json(path: str | Path) -> Any:
    """Any JSON file (another tool's output), read within the limits and with the messages of a
    result file: GpubenchJsonError names what keeps it from being read."""
    path = Path(path)
    return _parse_json(_read_text(path), path)

def loads(text: str, path: Path, require_benchmarks: bool = True) -> Result:
    """Validate one gpubench result given as JSON text, as `load` does a file's; `path` names it
    in messages (`log.jsonl:3` for a line of a log)."""
    return _validated(_parse_json(text, path), path, require_benchmarks)

def _validated(doc: Any, path: Path, require_benchmarks: bool) -> Result:
    if not isinstance(doc, dict):
        raise NotGpubenchError(f"{path}: not gpubench output (the JSON is {kind_of(doc)}, "
                               "not an object)")
    for key, kind in (("benchmarks", list), ("context", dict)):
        if key not in doc:
            raise NotGpubenchError(f"{path}: not gpubench output (no {key!r})")
        if not isinstance(doc[key], kind):
            raise WrongTypeError(f"{path}: {key!r} is {kind_of(doc[key])}, not "
                                 f"{'a list' if kind is list else 'an object'}")
    context = doc["context"]
    if "gpubench_version" not in context:
        raise NotGpubenchError(f"{path}: not gpubench output (its 'context' has no "
                               "'gpubench_version')")
    for key in _CONTEXT_STRINGS:
        if key in context and not isinstance(context[key], str):
            raise WrongTypeError(f"{path}: context {key!r} is {kind_of(context[key])}, "
                                 "not a string")
    count = context.get("merged_runs", 1)
    # Each run gives a file one entry or more, and a file holds at most MAX_CONTAINERS objects.
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_CONTAINERS:
        raise WrongTypeError(f"{path}: merged_runs {one_line(str(count)[:40])!r} is no count "
                             "of runs")
    benchmarks = _group_runs(path, doc["benchmarks"], declared_facts(path, context))
    if require_benchmarks and not benchmarks:
        entries = len(doc["benchmarks"])
        raise NoBenchmarksError(
            f"{path}: no benchmarks" if entries == 0
            else f"{path}: no successful benchmark (all {entries} entries failed)")
    return Result(path, context, benchmarks)

def _read_text(path: Path) -> str:
    try:
        return read_file(path).decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidJsonError(f"{path}: not JSON (not UTF-8 text)") from None

def read_file(path: str | Path) -> bytes:
    """The bytes of the file at `path`, unpacked where it is compressed, at most
    MAX_RESULT_BYTES of them; GpubenchJsonError names what keeps it from being read (no such
    file, a link to nothing, a folder, too large, a damaged compressed file)."""
    path = Path(path)
    try:
        data = read_bounded(path)
    except FileNotFoundError:
        raise MissingFileError(f"{path}: {dangling_link(path) or 'no such file'}") from None
    except IsADirectoryError:
        raise MissingFileError(f"{path}: is a directory, not a result file") from None
    except OSError as e:
        raise MissingFileError(f"{path}: cannot read ({e.strerror or e})") from None
    except ValueError:  # a NUL in the path, which no file name holds
        raise MissingFileError(f"{path}: no such file (the path holds a NUL)") from None
    if data is None:
        raise TooLargeError(f"{path}: larger than {MAX_RESULT_BYTES // 2**20} MiB, the largest "
                            "result file the scripts read")
    form = compression(data)
    return data if form is None else _unpacked(data, form, path)

def _unpacked(data: bytes, form: str, path: Path) -> bytes:
    try:
        held = unpacked(data, form)
    except EOFError:
        raise InvalidJsonError(f"{path}: {form} data cut short") from None
    except DAMAGED_STREAM as e:
        raise InvalidJsonError(f"{path}: {form} data that cannot be unpacked "
                               f"({one_line(str(e))})") from None
    if held is None:
        raise TooLargeError(f"{path}: more than {MAX_RESULT_BYTES // 2**20} MiB once unpacked, "
                            "the largest result file the scripts read")
    return held

def _parse_json(text: str, path: Path) -> Any:
    if not text.strip():
        raise EmptyFileError(f"{path}: file is empty")
    _check_counts(text, path)
    try:
        return json_loads(text)
    except json.JSONDecodeError as e:
        raise InvalidJsonError(
            f"{path}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}"
        ) from None
    except DuplicateKeyError as e:
        raise InvalidJsonError(f"{path}: invalid JSON: {e}") from None
    except RecursionError:
        raise InvalidJsonError(f"{path}: JSON nested too deeply to read") from None
    except ValueError:  # an integer literal past Python's digit limit (4300 by default)
        raise InvalidJsonError(f"{path}: a JSON number has too many digits to read") from None

def json_counts(text: str) -> tuple[int, int]:
    """The JSON objects and lists in `text`, and its values, counted without parsing it: the
    '{' and '[', and those plus the ',', outside strings (a name may hold '{' and ',')."""
    structure = _JSON_STRING.sub("", text)
    containers = structure.count("{") + structure.count("[")
    return containers, containers + structure.count(",")

def _check_counts(text: str, path: Path) -> None:
    """TooLargeError where `text` holds more JSON objects and lists, or values, than a result
    may (MAX_CONTAINERS, MAX_VALUES): parsing them would take memory out of proportion to its
    size."""
    # Every '{', '[' and ',' counted, those in strings too, is as many or more: within the limits,
    # the strings need not be taken out (a fleet reads thousands of files).
    containers = text.count("{") + text.count("[")
    if containers <= MAX_CONTAINERS and containers + text.count(",") <= MAX_VALUES:
        return
    containers, values = json_counts(text)
    if containers > MAX_CONTAINERS:
        raise TooLargeError(f"{path}: more than {MAX_CONTAINERS} JSON objects and lists, the "
                            "most a result file the scripts read holds")
    if values > MAX_VALUES:
        raise TooLargeError(f"{path}: more than {MAX_VALUES} JSON values, the most a result file "
                            "the scripts read holds")

def _group_runs(path: Path, entries: list[Any],
                facts: dict[str, FamilyFacts]) -> dict[str, Benchmark]:
    # Each run's aggregates by name (summaries.AGGREGATES), and the repetition count each says.
    aggregates: dict[str, dict[str, dict[str, float]]] = {}
    counts: dict[str, dict[str, Any]] = {}
    iterations: dict[str, list[dict[str, float]]] = {}  # also fixes the order of runs
    seen: set[tuple[str, str]] = set()  # (run, repetition index or aggregate name)
    for index, entry in enumerate(entries):
        where = _check_entry(path, index, entry)
        if entry.get("error_occurred"):
            continue
        # An aggregate's name is run_name + "_" + aggregate_name; run_name ties it to its run.
        run = entry.get("run_name") or entry["name"]
        reps = iterations.setdefault(run, [])
        if entry.get("run_type") != "aggregate":
            _check_repetition(where, seen, run, entry, len(reps))
            reps.append(_numbers(where, entry))
            continue
        aggregate = entry.get("aggregate_name")
        _check_not_seen(where, seen, run, f"{aggregate} aggregate")
        numbers = _numbers(where, entry, ratio=aggregate == "cv")
        if aggregate in AGGREGATES:
            aggregates.setdefault(run, {})[aggregate] = numbers
            counts.setdefault(run, {})[aggregate] = entry.get("repetitions", "?")

    benchmarks: dict[str, Benchmark] = {}
    for run, reps in iterations.items():
        stated = aggregates.get(run, {})
        check_aggregates(f"{path}: benchmark {run!r}", stated, reps)
        if "median" in stated:
            values = stated["median"]
            summary = f"median of {counts[run]['median']} repetitions"
        elif reps:
            values = _mean(reps)
            summary = "single run" if len(reps) == 1 else f"mean of {len(reps)} repetitions"
        else:
            continue  # only stddev/cv aggregates: nothing to report
        name = strip_gb_suffixes(run)
        if name in benchmarks:
            raise DuplicateBenchmarkError(
                f"{path}: two runs are named {name!r} once Google Benchmark suffixes are stripped"
            )
        cv = stated.get("cv")
        cv_count = counts[run]["cv"] if cv is not None else 0
        if cv is not None:
            _check_cv_sign(f"{path}: benchmark {run!r}", cv, stated.get("mean", values))
        benchmarks[name] = Benchmark(name, values, reps, summary, cv,
                                     cv_count if isinstance(cv_count, int) else 0,
                                     facts.get(family_of(name)), stated.get("stddev"))
    return benchmarks

def _check_cv_sign(where: str, cv: dict[str, float], mean: dict[str, float]) -> None:
    """A cv (standard deviation over mean) has its mean's sign: BadValueError for a negative cv
    of values whose mean (the mean aggregate, else the run's value) is not negative."""
    for key, ratio in cv.items():
        if ratio < 0 and mean.get(key, 0) >= 0:
            raise BadValueError(f"{where}: cv of {key.removesuffix('_us')!r} is {ratio:g}, "
                                "below 0 for values whose mean is not")

def _check_entry(path: Path, index: int, entry: Any) -> str:
    """Checks the fields the toolkit reads; returns how messages name the entry."""
    where = f"{path}: benchmarks[{index}]"
    if not isinstance(entry, dict):
        raise MalformedResultError(f"{where} is {kind_of(entry)}, not an object")
    if "name" not in entry:
        raise MalformedResultError(f"{where} has no name")
    for key in _STRING_FIELDS:
        if key in entry and not isinstance(entry[key], str):
            raise WrongTypeError(f"{where}: {key!r} is {kind_of(entry[key])}, not a string")
    if not entry["name"]:
        raise MalformedResultError(f"{where}: 'name' is empty")
    where = f"{path}: benchmark {entry['name']!r}"
    if "error_occurred" in entry and not isinstance(entry["error_occurred"], bool):
        raise WrongTypeError(f"{where}: 'error_occurred' is {kind_of(entry['error_occurred'])}, "
                             "not true or false")
    if entry.get("error_occurred"):
        return where  # a failed run's figures are not read
    if entry.get("run_type", "iteration") not in ("iteration", "aggregate"):
        raise MalformedResultError(f"{where}: unknown run_type {entry['run_type']!r}")
    _check_time_unit(where, entry)
    for key in _BOOKKEEPING.intersection(entry):
        value = entry[key]
        if not is_int(value) or not 0 <= value <= _LARGEST_COUNT:
            raise WrongTypeError(f"{where}: {key!r} is {shown(value)}, "
                                 "not a count (an integer from 0 to 2^63-1)")
    for key in _MEASUREMENTS:
        if key in entry and not is_number(entry[key]):
            raise WrongTypeError(f"{where}: {key!r} is {kind_of(entry[key])}, not a number")
    if "real_time" not in entry:
        raise MalformedResultError(f"{where}: no 'real_time'")
    return where

def _check_time_unit(where: str, entry: dict[str, Any]) -> None:
    """A successful entry names the unit of its times, one Google Benchmark writes; a cv
    aggregate, a ratio, needs none. A time read without its unit would be read 1000× off."""
    if "time_unit" in entry:
        if entry["time_unit"] not in _US_PER_TIME_UNIT:
            raise MalformedResultError(f"{where}: time_unit {shown(entry['time_unit'])} is "
                                       f"none Google Benchmark writes ({_TIME_UNITS})")
    elif entry.get("run_type") != "aggregate" or entry.get("aggregate_name") != "cv":
        raise MalformedResultError(f"{where}: no 'time_unit', so its times cannot be read "
                                   f"(Google Benchmark writes one of {_TIME_UNITS})")

def _check_not_seen(where: str, seen: set[tuple[str, str]], run: str, key: str) -> None:
    if (run, key) in seen:
        raise DuplicateBenchmarkError(f"{where}: {key} appears twice")
    seen.add((run, key))

def _check_repetition(where: str, seen: set[tuple[str, str]], run: str,
                      entry: dict[str, Any], earlier: int) -> None:
    """One repetition of a run appears once: by its repetition_index or, in files without
    one, no more often than the repetition count the run declares."""
    if "repetition_index" in entry:
        _check_not_seen(where, seen, run, f"repetition {entry['repetition_index']}")
    elif earlier >= entry.get("repetitions", 1):
        raise DuplicateBenchmarkError(f"{where} appears more often than its "
                                      f"{entry.get('repetitions', 1)} repetition(s)")

def _numbers(where: str, entry: dict[str, Any], ratio: bool = False) -> dict[str, float]:
    """Numeric measurements of one entry, with real_time/cpu_time converted to µs (or, for a
    `ratio` such as the cv aggregate, only renamed: a ratio has no unit). Each is checked as
    the toolkit reads it, after the conversion."""
    aggregate = entry.get("aggregate_name") if entry.get("run_type") == "aggregate" else None
    us_per_unit = 1.0 if ratio else _US_PER_TIME_UNIT[entry["time_unit"]]
    values = {}
    for key, v in entry.items():
        kind = type(v)  # json.loads makes exactly these types; bool is not a number here
        if kind is float:
            number = v
        elif kind is int and key not in _BOOKKEEPING:
            try:
                number = float(v)
            except OverflowError:
                raise BadValueError(f"{where}: {key!r} is too large for a float") from None
        else:
            continue
        if aggregate == "cv" and not math.isfinite(number):
            continue  # Google Benchmark's cv of a counter whose mean is 0 (host_timed)
        converted = number * us_per_unit if key in TIME_FIELDS else number
        # A positive number in range passes every rule but host_timed's and host_referenced's (a
        # file holds a million numbers, nearly all of them so): only the others are checked one
        # by one.
        if (not SMALLEST_MAGNITUDE <= converted <= LARGEST_MAGNITUDE
                or key in (HOST_TIMED, HOST_REFERENCED)):
            _check_number(where, key, converted, aggregate, written_zero=number == 0)
        values[f"{key}_us" if key in TIME_FIELDS else key] = converted
    return values

def _shown(key: str, number: float) -> str:
    """A number as a message shows it, a time with its unit (formatted only for a message:
    a file holds a million numbers)."""
    return f"{number:g}{' µs' if key in TIME_FIELDS else ''}"

def _check_number(where: str, key: str, number: float, aggregate: str | None,
                  written_zero: bool) -> None:
    """BadValueError where `number` (a time in µs) is no value of `key` the toolkit can use, in
    a repetition or, where `aggregate` names one, in that aggregate; `written_zero`: the file
    wrote 0, not a number that became 0 in µs."""
    spread = aggregate in _SPREAD_AGGREGATES
    if not math.isfinite(number):
        raise BadValueError(f"{where}: {key!r} is {_shown(key, number)}, not a finite number")
    if not written_zero and not SMALLEST_MAGNITUDE <= abs(number) <= LARGEST_MAGNITUDE:
        raise BadValueError(f"{where}: {key!r} is {_shown(key, number)}, outside "
                            f"{SMALLEST_MAGNITUDE:g} to {LARGEST_MAGNITUDE:g} in size, the range "
                            "of any measurement")
    if key in _POSITIVE and not spread and number <= 0:
        raise BadValueError(f"{where}: {key!r} is {number:g}; a measured time or rate is > 0")
    if aggregate == "stddev" and number < 0:
        raise BadValueError(f"{where}: {key!r} is {number:g}; a standard deviation is >= 0")
    if key == NOISE_PCT and number < 0:
        raise BadValueError(f"{where}: {key!r} is {number:g}; a spread is >= 0")
    if key == KERNEL_SM_CLOCK and not spread and number <= 0:
        raise BadValueError(f"{where}: {key!r} is {number:g}; a clock is > 0")
    if key in (HOST_TIMED, HOST_REFERENCED) and not spread and number not in (0, 1):
        raise BadValueError(f"{where}: {key!r} is {number:g}, not 0 or 1")

def _mean(reps: list[dict[str, float]]) -> dict[str, float]:
    if len(reps) == 1:  # a single run, as fleets hold by the thousand: nothing to average
        return dict(reps[0])
    # In the order the file first names them, as a single run's are: a set's order changes with
    # PYTHONHASHSEED, and the first us_per_ counter is a file's figure without facts.
    keys = dict.fromkeys(k for r in reps for k in r)
    return {k: float(np.mean([r[k] for r in reps if k in r])) for k in keys}
