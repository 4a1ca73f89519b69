"""The gallery of the machines measured: one self-contained HTML page built from every gpubench
result under a folder (results/ by default; written to its index.html).

Each folder directly under it is a machine (results/h200, results/h200x2, ...): its heading
names the GPU, count and driver its results record and its README's title, then every result
file beneath it, in path order, with its figures, drawn as the HTML report draws them (a panel
per series with its band, the figures without an argument, the matrices of GPU pairs), each
figure linked to the JSON file behind it. A result measured on several GPUs is drawn once per
GPU. JSON files that are not gpubench results are listed with the reason they are left out,
among them any that is no regular file (a FIFO, a device), which the gallery does not open, and
any whose series of GPU pairs name more GPUs than gpubench measures at once
(pair_matrix.check_pair_gpus: a matrix grows as the square of its GPUs) or more families
than one run draws (family_plot.MAX_FAMILIES). The
folders are walked to any depth without entering links to folders, so a link loop ends. A
filter box narrows the figures to the names holding its text.

  scripts/gpubench-tools gallery [RESULTS_DIR] [-o INDEX.html]

Exit status: 0 written, 2 bad usage, no result under the folder, a folder or README.md that
cannot be read, a README.md that is no regular file or is larger than 1 MiB, or a page that
could not be written or that would be written over a file the gallery reads.
"""

import argparse
from pathlib import Path

from gpubench_tools.cli.options import OneLineArgumentParser, script_error
from gpubench_tools.reading.bounded_read import dangling_link
from gpubench_tools.reading.results import GpubenchJsonError
from gpubench_tools.renderers.gallery import DEFAULT_RESULTS, SCRIPT, gallery_html, json_files
from gpubench_tools.renderers.html_report import write_page
from gpubench_tools.writing.outputs import refuse_output_over_input, write_stdout


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = OneLineArgumentParser(prog=SCRIPT, description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="?", type=Path, default=DEFAULT_RESULTS,
                        metavar="RESULTS_DIR", help="default: the repository's results/")
    parser.add_argument("-o", "--output", type=Path, metavar="INDEX.html",
                        help="default: RESULTS_DIR/index.html")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    output = args.output if args.output is not None else args.results / "index.html"
    try:
        if not args.results.is_dir():
            why = dangling_link(args.results) or "not a folder"
            raise GpubenchJsonError(f"{args.results}: {why}")
        refuse_output_over_input(output, [*json_files(args.results),
                                          *args.results.glob("*/README.md")])
        write_page(output, gallery_html(args.results, output.parent))
        write_stdout(f"wrote {output}\n")
    except (GpubenchJsonError, OSError) as error:
        return script_error(SCRIPT, error)
    return 0
