"""The gallery of the machines measured: a small page linking one page per machine folder, each
built from the machine's headline results (results/ by default; written to its index.html and
each machine's MACHINE/index.html beside it).

Each folder directly under the results folder that holds a gpubench result is a machine
(results/h200, results/h200x2, ...). Its page names the GPU, count and driver its results record
and its README's title, then draws its headline results: the files its README.md lists under a
`Headline results` heading (reading/machine_readme.py), in that order, or, where the README lists
none, the result files at the top of the folder. Each is drawn as the HTML report draws it (a
panel per series with its band, the figures without an argument, the matrices of GPU pairs),
linked to the JSON file behind it; a result measured on several GPUs is drawn once per GPU.
Every other result file beneath the folder is linked, not drawn, with its GPU and benchmark
count. JSON files that are not gpubench results are listed with the reason they are left out,
among them any that is no regular file (a FIFO, a device), which the gallery does not open, and
any whose series of GPU pairs name more GPUs than gpubench measures at once
(pair_matrix.check_pair_gpus: a matrix grows as the square of its GPUs) or more families than
one run draws (family_plot.MAX_FAMILIES). The folders are walked to any depth without entering
links to folders, so a link loop ends. A machine page's filter box shows the figures whose
benchmark or series name holds its text, or all the figures of a file whose path holds it.

  scripts/gpubench-tools gallery [RESULTS_DIR] [-o INDEX.html]

Exit status: 0 written, 2 bad usage, no result under the folder, a folder or README.md that
cannot be read, a README.md that is no regular file or is larger than 1 MiB, or a page that
could not be written or that would be written over a file the gallery reads.
"""

import argparse
from pathlib import Path

from gpubench_tools.cli.options import OneLineArgumentParser, script_error
from gpubench_tools.reading.bounded_read import dangling_link
from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.writing.outputs import refuse_output_over_input, write_stdout

SCRIPT = "gpubench-tools gallery"
# Run from the repository's root, as the README's commands are.
DEFAULT_RESULTS = Path("results")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = OneLineArgumentParser(prog=SCRIPT, description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="?", type=Path, default=DEFAULT_RESULTS,
                        metavar="RESULTS_DIR", help="default: results (from the repository's root)")
    parser.add_argument("-o", "--output", type=Path, metavar="INDEX.html",
                        help="the index page (default: RESULTS_DIR/index.html); each "
                        "machine's page is MACHINE/index.html in its folder")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # Loaded once the options are read: matplotlib is most of the start-up time.
    from gpubench_tools.renderers.gallery import gallery_pages, json_files, page_paths
    from gpubench_tools.renderers.html_report import write_page

    output = args.output if args.output is not None else args.results / "index.html"
    try:
        if not args.results.is_dir():
            why = dangling_link(args.results) or "not a folder"
            raise GpubenchJsonError(f"{args.results}: {why}")
        inputs = [*json_files(args.results), *args.results.glob("*/README.md")]
        for path in [output, *page_paths(args.results, output).values()]:
            refuse_output_over_input(path, inputs)
        pages = gallery_pages(args.results, output)
        for path, text in pages.items():
            if path != output:
                path.parent.mkdir(exist_ok=True)
            write_page(path, text)
        write_stdout(f"wrote {output} and {len(pages) - 1} machine page(s) beside it\n")
    except (GpubenchJsonError, OSError) as error:
        return script_error(SCRIPT, error)
    return 0
