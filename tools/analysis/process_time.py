#!/usr/bin/env python3
"""Where one gpubench process's time goes: per family, the seconds from one benchmark's line to
the next on the console (what the benchmark took, set-up, warm-up and checks included) beside
the seconds of its timed batches (real time per operation times its timed operations, `ops`, as
timed_share.py counts them), and the benchmarks whose untimed seconds are the most. What lies
outside the timed batches is what a shorter process could save.

  tools/analysis/process_time.py STAMPED.txt PROCESS.json [--top 15]

STAMPED.txt is the process's console, each line led by the seconds since it started, as
  script -qfec 'build/gpubench --benchmark_out=PROCESS.json --benchmark_out_format=json' \\
    /dev/null | python3 -u -c 'import sys,time
  t0=time.monotonic()
  for l in sys.stdin: print(f"{time.monotonic()-t0:9.3f} {l}", end="")' > STAMPED.txt
writes it (`script` gives gpubench a terminal, so each line is printed as its benchmark ends).
PROCESS.json (may be compressed) is the same process's --benchmark_out. A benchmark's seconds run
from the line before its own (the table's rule, for the first) to its own. Exit 0, or 2 with one
line for bad usage or an unusable file.
"""

import math
import re
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from gpubench_tools.cli.options import require_packages  # noqa: E402

require_packages("process_time.py", "numpy", "scipy")

from gpubench_tools.cli.options import (  # noqa: E402
    OneLineArgumentParser,
    script_error,
    script_output,
)
from gpubench_tools.reading.errors import GpubenchJsonError  # noqa: E402
from gpubench_tools.reading.result_file import load_with_document  # noqa: E402
from timed_share import timed_by_benchmark  # noqa: E402

SCRIPT = "process_time.py"
# Terminal colours as Google Benchmark writes them, and what `script` leaves of them.
COLOUR = re.compile(r"\x1b\[[0-9;]*m|\r")


class StampError(Exception):
    pass


def wall_seconds(lines: list[str], names: set[str]) -> dict[str, float]:
    """Each benchmark's seconds on the console, from the line before its own to its own."""
    walls: dict[str, float] = {}
    since = None
    last = 0.0
    for number, line in enumerate(lines, 1):
        stamp, _, text = line.strip().partition(" ")
        try:
            seconds = float(stamp)
        except ValueError:
            seconds = math.nan
        if not math.isfinite(seconds) or seconds < last:
            raise StampError(f"line {number} starts with no seconds on from the line before: "
                             f"{stamp[:40]!r}")
        last = seconds
        text = COLOUR.sub("", text).strip()
        first = text.split(maxsplit=1)[0] if text else ""
        if first in names and since is not None:
            walls[first] = seconds - since
            since = seconds
        elif text.startswith("-----"):
            since = seconds
    if not walls:
        raise StampError("no line names a benchmark of the JSON file after the table's rule")
    if not sum(walls.values()) > 0:
        raise StampError("its benchmarks' lines all carry the seconds of the table's rule")
    return walls


def family(name: str) -> str:
    parts = name.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 and not parts[1][:1].isdigit() else parts[0]


def report(walls: dict[str, float], timed: dict[str, float], top: int) -> str:
    wall_total = sum(walls.values())
    timed_total = sum(timed.get(name, 0.0) for name in walls)
    groups: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for name, wall in walls.items():
        group = groups[family(name)]
        group[0] += wall
        group[1] += timed.get(name, 0.0)
        group[2] += 1
    lines = [f"{len(walls)} benchmarks, {wall_total:.1f} s from the first to the last, "
             f"{timed_total:.1f} s ({100 * timed_total / wall_total:.0f}%) in timed batches, "
             f"{wall_total - timed_total:.1f} s outside them",
             "", "| family | benchmarks | seconds | timed | outside |",
             "| --- | ---: | ---: | ---: | ---: |"]
    for name, (wall, in_batches, count) in sorted(groups.items(),
                                                  key=lambda item: item[1][1] - item[1][0]):
        lines.append(f"| `{name}` | {count} | {wall:.2f} | {in_batches:.2f} | "
                     f"{wall - in_batches:.2f} |")
    lines += ["", f"the {top} benchmarks with the most seconds outside timed batches:", "",
              "| benchmark | seconds | timed |", "| --- | ---: | ---: |"]
    for name in sorted(walls, key=lambda name: timed.get(name, 0.0) - walls[name])[:top]:
        lines.append(f"| `{name}` | {walls[name]:.2f} | {timed.get(name, 0.0):.2f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = OneLineArgumentParser(prog=SCRIPT, description=__doc__.splitlines()[0])
    parser.add_argument("stamped", metavar="STAMPED.txt")
    parser.add_argument("process", metavar="PROCESS.json")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args(argv)
    if args.top < 0:
        return script_error(SCRIPT, f"--top: {args.top} is below 0")
    try:
        entries = load_with_document(args.process)[1]["benchmarks"]
    except (GpubenchJsonError, OSError) as error:
        return script_error(SCRIPT, error)
    try:
        with open(args.stamped, encoding="utf-8", errors="replace") as stream:
            walls = wall_seconds(stream.read().splitlines(),
                                 {entry["name"] for entry in entries})
    except OSError as error:
        return script_error(SCRIPT, error)
    except StampError as error:
        return script_error(SCRIPT, f"{args.stamped}: {error}")
    return script_output(SCRIPT, report(walls, timed_by_benchmark(entries), args.top))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
