"""The gallery: see gpubench_tools/renderers/gallery.py for what it draws."""

import argparse
from pathlib import Path

from gpubench_tools.cli.options import OneLineArgumentParser, script_error
from gpubench_tools.reading.bounded_read import dangling_link
from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.renderers import gallery
from gpubench_tools.renderers.gallery import (
    DEFAULT_RESULTS,
    SCRIPT,
    gallery_pages,
    json_files,
    page_paths,
)
from gpubench_tools.renderers.html_report import write_page
from gpubench_tools.writing.outputs import refuse_output_over_input, write_stdout


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = OneLineArgumentParser(prog=SCRIPT, description=gallery.__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="?", type=Path, default=DEFAULT_RESULTS,
                        metavar="RESULTS_DIR", help="default: the repository's results/")
    parser.add_argument("-o", "--output", type=Path, metavar="INDEX.html",
                        help="the index page (default: RESULTS_DIR/index.html); each "
                        "machine's page is MACHINE/index.html in its folder")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
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
