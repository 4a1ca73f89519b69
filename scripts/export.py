#!/usr/bin/env python3
"""Export gpubench results for continuous-benchmarking services.

Generic Google Benchmark readers chart real_time only, which for gpubench is the wrong figure
for copies and saxpy (GB/s) and launches (us_per_launch). This writes each benchmark's primary
figure instead:

  --format github   github-action-benchmark "custom" JSON: a list of {name, unit, value, extra}.
                    A file is either customBiggerIsBetter or customSmallerIsBetter, so
                    --direction picks one: bigger = GB/s (copy, saxpy), smaller = µs (launch and
                    the rest). Run twice for both.
  --format bencher  Bencher Metric Format: {name: {measure: {value}}} with measure
                    throughput-gbps (GB/s, 1e9 bytes/s; higher is better) or
                    latency-us (microseconds; lower is better).

Exit status: 0 written, 2 unusable input.
"""

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gpubench_json import GpubenchJsonError, Result, load

BENCHER_MEASURE = {True: "throughput-gbps", False: "latency-us"}  # by bigger_is_better


def github_entries(result: Result, bigger_is_better: bool) -> list[dict[str, Any]]:
    return [
        {
            "name": bench.name,
            "unit": bench.metric.unit,
            "value": bench.value(),
            "extra": f"{result.describe()}; {bench.summary}",
        }
        for bench in result.benchmarks.values()
        if bench.metric.bigger_is_better == bigger_is_better
    ]


def bencher_document(result: Result) -> dict[str, dict[str, dict[str, float]]]:
    return {
        bench.name: {BENCHER_MEASURE[bench.metric.bigger_is_better]: {"value": bench.value()}}
        for bench in result.benchmarks.values()
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("result", type=Path, metavar="RESULT.json")
    parser.add_argument("--format", choices=["github", "bencher"], required=True)
    parser.add_argument("--direction", choices=["bigger", "smaller"],
                        help="github only, required there: bigger = GB/s, smaller = µs")
    parser.add_argument("-o", "--output", type=Path, metavar="FILE",
                        help="write here instead of stdout")
    args = parser.parse_args(argv)
    if (args.format == "github") != (args.direction is not None):
        parser.error("--direction is required with --format github and only allowed there")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        result = load(args.result)
    except GpubenchJsonError as e:
        print(f"export.py: {e}", file=sys.stderr)
        return 2
    if not result.benchmarks:
        print(f"export.py: {result.path}: no successful benchmark", file=sys.stderr)
        return 2
    if args.format == "github":
        doc: Any = github_entries(result, args.direction == "bigger")
        if not doc:
            print(f"export.py: note: {result.path} has no {args.direction}-is-better "
                  "benchmark; writing an empty list", file=sys.stderr)
    else:
        doc = bencher_document(result)
    text = json.dumps(doc, indent=2) + "\n"
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
