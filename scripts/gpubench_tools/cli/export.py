"""Export gpubench results for continuous-benchmarking services.

Generic Google Benchmark readers chart real_time only, which for gpubench is often the wrong
figure. This writes each benchmark's figure instead, as its family's facts say (gpubench_json:
the context's gpubench_families, else the inferred rule), with its spread:

  --format github   github-action-benchmark "custom" JSON: a list of {name, unit, value, range,
                    extra}. A file is either customBiggerIsBetter or customSmallerIsBetter, so
                    --direction picks one: bigger = figures better higher (GB/s), smaller =
                    figures better lower (µs). Run twice for both.
  --format bencher  Bencher Metric Format: {name: {measure: {value, lower_value, upper_value}}}
                    with measure throughput-gbps (GB/s; higher is better), latency-us (µs;
                    lower is better), or for another unit `<higher|lower>-<unit>` (the unit's
                    letters and digits, lower case).

The spread is the sample standard deviation of the repetitions or, in a file written with
--benchmark_report_aggregates_only=true, Google Benchmark's stddev aggregate. `range` is
"± stddev"; lower_value and upper_value are value ∓ stddev, lower_value never below 0 for a
figure that was never measured below 0 (a time or a rate; a family's own counter may be
negative, and its lower_value then lies below its value as any other's does). A benchmark run
once has neither.

Exit status: 0 written, 2 unusable input, an empty selection, a value that is not a finite
number, or an output that cannot be written or that is the result read.
"""

import argparse
import json
from pathlib import Path
from typing import Any

from gpubench_tools.cli.options import OneLineArgumentParser, script_error
from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.reading.name_filter import FilterError, name_filter
from gpubench_tools.reading.result_file import load
from gpubench_tools.renderers.export import (
    ExportError,
    bencher_document,
    exported,
    github_entries,
    selected,
    write,
)
from gpubench_tools.writing.outputs import refuse_output_over_input


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = OneLineArgumentParser(prog="gpubench-tools export", description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("result", type=Path, metavar="RESULT.json")
    parser.add_argument("--format", choices=["github", "bencher"], required=True)
    parser.add_argument("--direction", choices=["bigger", "smaller"],
                        help="github only, required there: bigger = figures better higher, "
                             "smaller = figures better lower")
    parser.add_argument("--filter", metavar="REGEX",
                        help="export only benchmarks whose name (without Google Benchmark's "
                             "suffixes) this regular expression matches")
    parser.add_argument("-o", "--output", type=Path, metavar="FILE",
                        help="write here instead of stdout")
    args = parser.parse_args(argv)
    if (args.format == "github") != (args.direction is not None):
        parser.error("--direction is required with --format github and only allowed there")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        if args.output is not None:
            refuse_output_over_input(args.output, [args.result])
        pattern = name_filter(args.filter) if args.filter is not None else None
        result = load(args.result)
        benches = selected(result, args, pattern)
        figures = [exported(b) for b in benches]
        doc: Any = (github_entries(figures, result) if args.format == "github"
                    else bencher_document(figures))
        # allow_nan=False: NaN and Infinity are not JSON, and the services' parsers reject them.
        write(json.dumps(doc, indent=2, allow_nan=False) + "\n", args.output)
    except ExportError as e:
        return script_error("gpubench-tools export", str(e))
    except (GpubenchJsonError, OSError) as e:
        return script_error("gpubench-tools export", e)
    except FilterError as e:
        return script_error("gpubench-tools export", f"--filter={e}")
    return 0
