"""Write a limits file for scripts/gpubench-tools fleet from gpubench results of one GPU model.

    scripts/gpubench-tools limits -o results/limits/h200.json --tolerance=10 RESULT_DIR_OR_FILE...

Floors are written for the device-timed bandwidth figures that depend on the GPU and its links:
copies and peer copies from 1 MiB, saxpy from 2^20 elements (host-timed figures move with the
host, copies to every device at once with the number of devices: neither has one). Each floor
is (1 - tolerance/100) x the lowest single measurement of the benchmark in the results: every
repetition of every run (a file written with aggregates only holds no single measurement and
adds nothing), or x its median times (1 - its process loss) squared where that is lower.

The file also holds, per benchmark, its process loss (`process_losses`): the largest loss, 1 -
speed against its card's median, of any separate process of a card (a GPU UUID under one
gpubench version) that ran it in 5 processes or more. A separate process is a repetition of a
file `gpubench-tools merge` wrote from runs of one repetition each (its context's merged_runs),
else a file. gpubench-tools fleet flags no GPU on a sweep unless, at half its sizes or more, it
is below (1 - process loss)^2 of its group's median (a whole process lands on a level of its own).
Per number K of processes it also holds the largest loss of the median of K processes of a card
(`median_loss_pct`: the median of its K slowest, from cards of 2K processes or more), which
fleet --processes-per-gpu K judges by; a host-paced figure has none and is judged by its single
process's loss.

Each floor also records the conditions it was measured under, as `requires`: the PCIe link's
maximum for copies to or from the host, the L2 mode for saxpy, the kind of NVLink for a GPU
pair; gpubench-tools fleet applies it only where a GPU's context matches.

Which figures get a floor is read by the families' facts (reading/facts.py): a GB/s figure of a
case whose argument is 1 MiB or more (bytes) or 2^20 elements or more, that no file says is
host-paced. What a floor requires is about the benchmarks this command is for, so `requirement`
names them: a copy through the PCIe link (copy/HtoD, DtoH, bidir) depends on the link, saxpy on
its L2 mode, a peer copy on the NVLink of its pair (`<s>to<d>`); copies to every device at once
(`..._all_devices`) depend on how many devices there are and get no floor.

A file that names one benchmark of a GPU twice (`X` and `X/device:N` of its first device) is
refused in one line: one would replace the other, and the floor would follow the file's order.
"""

import json
import sys
from pathlib import Path

from gpubench_tools.cli.options import OneLineArgumentParser, script_error
from gpubench_tools.models.limits import collect, limits_document, result_files
from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.reading.safe_text import printable
from gpubench_tools.writing.outputs import refuse_output_over_input, write_output, write_stdout


def main(argv: list[str] | None = None) -> int:
    parser = OneLineArgumentParser(prog="gpubench-tools limits",
                                   description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+", metavar="RESULT_DIR_OR_FILE",
                        help="gpubench JSON results, or directories of them (*.json, and "
                        "*.json.gz, .xz or .bz2 compressed)")
    parser.add_argument("-o", "--output", type=Path, required=True, help="the limits file")
    parser.add_argument("--tolerance", type=float, default=10.0,
                        help="percent below the lowest measurement the floor sits (10)")
    parser.add_argument("--gpu-name", help="the GPU model (default: the first result's)")
    args = parser.parse_args(argv)
    if not 0 <= args.tolerance < 100:
        parser.error(f"--tolerance={args.tolerance:g}: must be from 0 to less than 100")
    command = " ".join(["scripts/gpubench-tools limits",
                        *(argv if argv is not None else sys.argv[1:])])
    try:
        files = result_files(args.inputs)
        refuse_output_over_input(args.output, files)
        model, measured, sources, processes, host_paced = collect(files, args.gpu_name)
        if not measured:
            raise ValueError(f"no device-timed bandwidth measurement of a {model} in the results")
        document = limits_document(model, measured, sources, args.tolerance, command,
                                   processes, host_paced)
        # A path that is not UTF-8 (its bytes read as lone surrogates) is written as those
        # surrogates' JSON escapes, which read back as the same path.
        write_output(args.output, json.dumps(document, indent=1, ensure_ascii=False) + "\n",
                     errors="backslashreplace")
    except (GpubenchJsonError, OSError) as error:
        return script_error("gpubench-tools limits", error)
    except ValueError as error:
        return script_error("gpubench-tools limits", str(error))
    try:
        write_stdout(printable(f"{args.output}: {len(measured)} floors of the {model}") + "\n")
    except OSError as error:
        return script_error("gpubench-tools limits", error)
    return 0
