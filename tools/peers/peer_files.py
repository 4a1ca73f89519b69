"""What the peer comparisons read: a gpubench result through the toolkit's loader (its limits,
checks and messages), and nvbandwidth -j output checked field by field, so any file is read or
refused in one line `<tool>: <problem>` with exit status 2, as the toolkit does."""
import math
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from gpubench_tools.cli.options import require_packages, script_error  # noqa: E402

require_packages(Path(sys.argv[0]).name, "numpy", "scipy")

from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.reading.result_file import load, read_json  # noqa: E402,E501
from gpubench_tools.reading.results import Benchmark
from gpubench_tools.reading.safe_text import printable  # noqa: E402
from gpubench_tools.writing.outputs import write_stdout  # noqa: E402

# nvbandwidth's matrix: rows of cells, None where it measured nothing.
Matrix = list[list[float | None]]


class NotNvbandwidthError(GpubenchJsonError):
    pass


def median_of(bench: Benchmark, key: str) -> float | None:
    """The median over repetitions of counter `key` (the median aggregate in a file of
    aggregates only); None where the benchmark has no such counter."""
    values = [run[key] for run in bench.repetitions if key in run]
    if values:
        return statistics.median(values)
    return bench.values.get(key)


def gpubench_medians(path: str, key: str) -> dict[str, float]:
    """median_of each benchmark that has counter `key`, by its name without Google Benchmark's
    suffixes."""
    found = {}
    for bench in load(path).benchmarks.values():
        value = median_of(bench, key)
        if value is not None:
            found[bench.name] = value
    return found


def _cell(value: object) -> float | None:
    """A matrix cell as nvbandwidth writes it ("123.45", "N/A"); None where it measured nothing
    (N/A, empty, or no finite positive number)."""
    if isinstance(value, str) and value.strip() in ("N/A", ""):
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ValueError(f"a cell is {type(value).__name__}, not a number or N/A")
    try:
        number = float(value)
    except (ValueError, OverflowError):
        raise ValueError(f"a cell is {printable(value)[:40]!r}, not a number or N/A") from None
    return number if math.isfinite(number) and number > 0 else None


def _testcases(doc: object) -> list[dict[str, object]]:
    tool = doc.get("nvbandwidth") if isinstance(doc, dict) else None
    cases = tool.get("testcases") if isinstance(tool, dict) else None
    if not isinstance(cases, list):
        raise ValueError("no nvbandwidth.testcases list")
    for case in cases:
        if not isinstance(case, dict) or not isinstance(case.get("name"), str):
            raise ValueError("a test case that is not an object with a name")
        if not isinstance(case.get("status", ""), str):
            raise ValueError(f"{printable(case['name'])}: its status is not text")
    return cases


def nvbandwidth_cases(paths: list[str]) -> dict[str, tuple[str, Matrix]]:
    """name -> (status, matrix of cells) over every test case of every file; a case twice (in
    one file or two) is refused, since which of its figures counts would be a guess."""
    found: dict[str, tuple[str, Matrix]] = {}
    where: dict[str, str] = {}
    for path in paths:
        doc = read_json(path)
        try:
            for case in _testcases(doc):
                name = case["name"]
                if name in found:
                    raise ValueError(f"test case {printable(name)} again (first in "
                                     f"{printable(where[name])})")
                rows = case.get("bandwidth_matrix", [])
                if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
                    raise ValueError(f"{printable(name)}: bandwidth_matrix is not a list of rows")
                found[name] = (str(case.get("status", "?")), [[_cell(v) for v in r] for r in rows])
                where[name] = path
        except ValueError as error:
            raise NotNvbandwidthError(f"{path}: not nvbandwidth -j output ({error})") from None
    return found


def print_comparison(tool: str, lines: list[str], nothing: str) -> int:
    """`lines` on stdout and exit status 0; where there are none, or stdout takes them not,
    one line on stderr (`nothing` says why there are none) and exit status 2."""
    if not lines:
        return script_error(tool, f"nothing to compare: {nothing}")
    try:
        write_stdout("\n".join(lines) + "\n")
    except OSError as error:
        return script_error(tool, error)
    return 0
