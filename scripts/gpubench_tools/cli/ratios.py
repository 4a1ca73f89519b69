"""Paired launch-path ratios with their 95% confidence intervals, from a gpubench result.

gpubench's launch/paired/ benchmarks time every launch path in the same rounds and report each
path's cost relative to others as counters `<path>_vs_<reference>` with `_lo`, `_hi` (the 95%
interval) and `_resolved` (1 where the interval clears both 1 and the host's own band:
`same_path_vs_runtime`, <<<>>> against itself in the same rounds). This prints them as a table,
or as one sentence per path (--sentences), with "no difference resolved" where the interval
does not clear that band. Given a second result, it also checks that the two runs agree: every
ratio's intervals overlap. Exit 1 if some do not, 2 on bad input or bad usage.

One process's interval covers the spread between its own blocks only. The host sets a level per
process that no block of that process sees: the driver's 32764-byte launch against its empty one
measured 2.07-2.24 in three processes and 2.26-2.36 in a fourth, six interleaved repetitions each
(results/h200/launch_paired_levels/). A result that holds several runs (separate processes
recorded by gpubench-tools record, or repetitions of one process) is therefore pooled: each ratio
is the geometric mean of the runs' ratios, with a 95% interval that is the wider of the Student-t
interval over the runs' logarithms (what moves between the runs) and the runs' own intervals
combined (what moves within them). Only separate processes put the per-process level in it.

This command is about one benchmark by purpose: it reads the `_vs_` counters that only
launch/paired/ writes (in any benchmark that holds them, whatever its name), not a family's
figure, so the family facts have nothing to tell it.
"""

from pathlib import Path

from gpubench_tools.cli.options import OneLineArgumentParser, script_error
from gpubench_tools.models.launch_ratios import SCRIPT, _rows_of, agreements
from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.reading.safe_text import printable_lines
from gpubench_tools.renderers.launch_ratios_text import (
    format_agreements,
    format_table,
    pooling_note,
    sentences,
)
from gpubench_tools.writing.outputs import write_stdout


def main(argv: list[str] | None = None) -> int:
    parser = OneLineArgumentParser(prog=SCRIPT, description=__doc__.splitlines()[0])
    parser.add_argument("result", type=Path, help="gpubench JSON with launch/paired/ benchmarks")
    parser.add_argument("second", type=Path, nargs="?",
                        help="a second run's JSON: check that every ratio's intervals overlap")
    parser.add_argument("--sentences", action="store_true",
                        help="one sentence per path (the README's launch lead) instead of a table")
    parser.add_argument("--markdown", action="store_true", help="markdown tables")
    args = parser.parse_args(argv)
    try:
        result, rows = _rows_of(args.result)
        second = _rows_of(args.second) if args.second is not None else None
    except GpubenchJsonError as error:
        return script_error(SCRIPT, error)
    note = pooling_note(result, rows)
    if args.sentences:
        text = "\n".join([note, *sentences(rows)]) + "\n"
    else:
        text = format_table(rows, markdown=args.markdown) + f"\n{note}\n"
    disagreeing = 0
    if second is not None:
        second_result, second_rows = second
        pairs = agreements(rows, second_rows)
        if not pairs:
            return script_error(SCRIPT, f"{args.second}: no ratio in common with {args.result}")
        disagreeing = sum(not p.overlap for p in pairs)
        text += ("\n" + format_agreements(pairs, markdown=args.markdown)
                 + f"\n{len(pairs) - disagreeing} of {len(pairs)} ratios agree between the runs"
                 " (their 95% intervals overlap)\n")
        second_note = pooling_note(second_result, second_rows)
        if second_note != note:
            text += f"The second result: {second_note}\n"
    try:
        # The sentences and notes name paths and files as the result holds them.
        write_stdout(printable_lines(text))
    except OSError as error:
        return script_error(SCRIPT, error)
    return 1 if disagreeing else 0
