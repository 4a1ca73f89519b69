"""Merge separate gpubench runs of one build on one GPU into one result: one repetition per run.

Two processes of the same binary differ by more than the repetitions inside one process do: each
process allocates its buffers anew and meets the host at another minute (a device-to-device copy of
1 MiB measured 1006-1014 GB/s in three processes and 964 GB/s in a fourth; host-timed launch submits
moved by 1.13-1.68 times between two runs a minute apart: results/h200/comparison/). A CI gate that
takes each process as one repetition sees that spread, and gpubench-tools compare judges a
difference against it.

Each run gives each of its benchmarks one repetition: its one measurement, or the per-field
median of its repetitions, or its median aggregate in a file written with aggregates only. The
output is Google Benchmark's JSON, as gpubench writes it (every repetition, then mean, median,
stddev and cv aggregates), with the first run's context and `merged_runs`, the number of runs.
A recording merged before (a file with `merged_runs` in its context) gives each of its
repetitions as a run of its own, so the runs of two recordings pool (a baseline recorded in
two parts, say); one holding more repetitions of a benchmark than its merged_runs is refused.
A benchmark holds as many repetitions as the runs that measured it. The runs must agree on
gpu_uuid, driver, CUDA and gpubench version: a result merged from two GPUs or two builds is no
measurement of either. They must also have measured alike: the same devices
(selected_devices and each device_<N>), --energy on or off in all (its work after each timed
loop warms the GPU for the next benchmark), and where a run holds saxpy benchmarks, the same
saxpy_l2 (--l2: cold and warm are two measurements of one name). The first run differing names
the key and both values in one line. A benchmark's times are written in the time_unit of the first
run that measured it; a run in another unit has its times converted by shifting their decimal
digits, so the one rounding is the one to the nearest float that reading them makes.

The output is written whole or not at all (a new file renamed over OUT.json once complete): a
write that fails leaves an earlier OUT.json as it was. An OUT.json.gz, .xz or .bz2 (any name
ending so) is written compressed in that form, as every subcommand reads it: a baseline of 19 full
runs is 9.5 MB of JSON and 1.1 MB with gzip.

Exit status: 0 written, 2 unusable input, runs that do not belong together, a run given twice,
bad usage or an output that could not be written or that is one of the runs.
"""

import json
from pathlib import Path

from gpubench_tools.cli.options import OneLineArgumentParser, script_error
from gpubench_tools.models.merge import SCRIPT, compressed, merge
from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.writing.outputs import refuse_output_over_input, write_output, write_stdout


def main(argv: list[str] | None = None) -> int:
    parser = OneLineArgumentParser(prog=SCRIPT, description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=Path, nargs="+", metavar="RUN.json",
                        help="gpubench results of separate runs of one build on one GPU")
    parser.add_argument("-o", "--output", type=Path, required=True, metavar="OUT.json",
                        help="the merged result; compressed where its name ends in .gz, .xz "
                        "or .bz2")
    args = parser.parse_args(argv)
    if len(args.runs) < 2:
        return script_error(SCRIPT, "give two or more runs to merge")
    try:
        refuse_output_over_input(args.output, args.runs)
        merged = merge(args.runs)
        try:
            text = json.dumps(merged, indent=1, allow_nan=False) + "\n"
        # A NaN or an infinity load reads: in the context, or in a list an entry holds.
        except ValueError as error:
            return script_error(SCRIPT, f"the merged runs cannot be written as JSON: {error}")
        write_output(args.output, compressed(args.output.name, text))
        write_stdout(f"wrote {args.output}: {merged['context']['merged_runs']} runs, "
                     f"{sum(e['run_type'] == 'iteration' for e in merged['benchmarks'])} "
                     "repetitions\n")
    except (GpubenchJsonError, OSError) as error:
        return script_error(SCRIPT, error)
    return 0
