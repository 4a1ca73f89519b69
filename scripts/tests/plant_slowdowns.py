#!/usr/bin/env python3
"""Plant slowdowns in a real gpubench result and check gpubench-tools compare's verdicts on them.

  plant_slowdowns.py BASE.json NEW.json PLANTED.json [COMPARE.PY FLAGS]

writes PLANTED.json, a copy of NEW.json in which every GPU-timed copy of 1 MiB and more (but
pageable ones, which the driver stages on the host), every saxpy at N >= 2^20 and every peer copy is
1.05 times slower, and every host-timed launch figure 1.5 times slower (times multiplied, rates
divided, aggregates recomputed). Which figures are host-timed comes from gpubench's host_timed
counter, or, in files written before it, from the README's table (launch on the host clock; copies:
sync and pageable). It then compares BASE.json with PLANTED.json under gpubench-tools compare's
rules (its defaults, or the flags given after the files, e.g. --alpha=0.05) and prints one line per
planted benchmark: its verdict, the change seen and its resolution. Exit 0 when every planted
benchmark is SLOWER, every other one SAME; 1 otherwise, naming them.

BASE.json against NEW.json is the A/A pair (two recordings of one build); the planted changes
are the regressions the gate must catch (issue 20).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gbench_builder import load_json, scaled, write_json  # noqa: E402

from gpubench_tools.cli.compare import parse_args, rules_from  # noqa: E402
from gpubench_tools.models.comparison import SAME, SLOWER, compare  # noqa: E402
from gpubench_tools.reading.facts import strip_gb_suffixes  # noqa: E402
from gpubench_tools.reading.result_file import load
from gpubench_tools.renderers.comparison_text import format_ratio, format_resolution  # noqa: E402

GPU_FACTOR, HOST_FACTOR = 1.05, 1.5


def host_timed(entry: dict) -> bool:
    if "host_timed" in entry:
        return bool(entry["host_timed"])
    parts = strip_gb_suffixes(entry["run_name"]).split("/")
    return parts[0] == "launch" or (parts[0] == "copy" and ("sync" in parts or
                                                            "pageable" in parts))


def factor(entry: dict) -> float | None:
    """How much slower a run is planted, or None where it is left alone."""
    parts = strip_gb_suffixes(entry["run_name"]).split("/")
    size = int(parts[-1]) if parts[-1].isdigit() else 0
    if host_timed(entry):
        return HOST_FACTOR if parts[0] == "launch" else None
    if parts[0] == "saxpy":
        return GPU_FACTOR if size >= 1 << 20 else None
    if parts[0] == "peer":
        return GPU_FACTOR
    if parts[0] == "copy" and "pageable" not in parts:
        return GPU_FACTOR if size >= 1 << 20 else None
    return None


def plant(doc: dict) -> tuple[dict, dict[str, float]]:
    planted = {}
    for entry in doc["benchmarks"]:
        if entry.get("run_type") == "iteration" and entry["run_name"] not in planted:
            if (f := factor(entry)) is not None:
                planted[entry["run_name"]] = f
    for run, f in planted.items():
        doc = scaled(doc, run, f)
    return doc, {strip_gb_suffixes(run): f for run, f in planted.items()}


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print("plant_slowdowns.py: usage: plant_slowdowns.py BASE.json NEW.json PLANTED.json "
              "[COMPARE.PY FLAGS]", file=sys.stderr)
        return 2
    base_path, new_path, out_path = map(Path, argv[:3])
    rules = rules_from(parse_args([*argv[3:], str(base_path), str(out_path)]))
    doc, planted = plant(load_json(new_path))
    write_json(out_path, doc)
    comparison = compare(load(base_path), load(out_path), rules)
    wrong = []
    for row in comparison.rows:
        expected = SLOWER if row.name in planted else SAME
        if row.name in planted:
            print(f"{row.name}: planted {planted[row.name]:.2f}× slower, seen "
                  f"{format_ratio(row.ratio)}, resolution "
                  f"{format_resolution(row.resolution_pct)}, {row.verdict}")
        if row.verdict != expected:
            wrong.append(f"{row.name} {row.verdict} (expected {expected})")
    print(f"{len(planted)} planted, {len(comparison.rows)} compared, {len(wrong)} wrong"
          + "".join(f"\n  {w}" for w in wrong))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
