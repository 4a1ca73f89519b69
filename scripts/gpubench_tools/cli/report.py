"""A report comparing gpubench runs, for a person to read.

--format=markdown (the default): BASE and NEW into the folder -o names, as report.md and one PNG
per family. report.md holds what `gpubench-tools compare` decides (the verdict, the changed
benchmarks first, the mode and its rule, the context keys that differ, a geometric-mean summary
per family, the benchmarks in one file only, the table of every benchmark); each figure
overlays both runs, drawn as `gpubench-tools plot` draws them.

--format=html: one self-contained page, -o's file, comparing two or more runs: the verdict of
each later run against the first, then the runs and their context, then per family the changes
and the figures (renderers/html_report.py).

Exit status: 0 written (whatever the verdicts), 2 unusable input, bad usage, a report that
could not be written (the files of one report are written all or none: then no file of the
folder is changed), or an output that is an input (then nothing is written).
"""

import argparse
from pathlib import Path

from gpubench_tools.cli.compare import add_comparison_options, load_pair, rules_from
from gpubench_tools.cli.options import OneLineArgumentParser, script_error

SCRIPT = "gpubench-tools report"
FORMATS = ("markdown", "html")


def nonnegative_int(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 4:
        raise argparse.ArgumentTypeError(f"must be a device number (0 to 9999), not {text!r}")
    return int(text)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = OneLineArgumentParser(prog=SCRIPT, description=__doc__, allow_abbrev=False,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+", type=Path, metavar="RESULT.json",
                        help="BASE, then NEW (markdown: exactly two; html: one or more NEW, "
                             "each compared with BASE)")
    parser.add_argument("-o", "--output", type=Path, required=True, metavar="PATH",
                        help="markdown: the folder for report.md and the figures (created if "
                             "its parent exists); html: the page's file")
    parser.add_argument("--format", choices=FORMATS, default="markdown",
                        help="markdown (default) or html")
    parser.add_argument("--device", type=nonnegative_int, metavar="N",
                        help="html: from a file measured on several GPUs (names ending "
                             "device:N), the benchmarks of GPU N")
    add_comparison_options(parser)
    parser.add_argument("--report", action="store_true",
                        help="no regression check even when GPU, driver and CUDA match")
    args = parser.parse_args(argv)
    if args.format == "markdown":
        if len(args.results) != 2:
            parser.error(f"give two result files, BASE and NEW, not {len(args.results)} "
                         "(--format=html compares more)")
        if args.device is not None:
            parser.error("--device: only with --format=html")
    elif len(args.results) < 2:
        parser.error("give at least two result files: the first and those compared with it")
    return args


def markdown_report(args: argparse.Namespace) -> str:
    from gpubench_tools.models.comparison import compare
    from gpubench_tools.renderers.comparison_text import verdict_line
    from gpubench_tools.renderers.markdown_report import write_report

    base_path, cont_path = args.results
    base, cont = load_pair(base_path, cont_path, args.filter)
    comparison = compare(base, cont, rules_from(args), args.report, args.filter)
    written = write_report(comparison, args.output, [base_path, cont_path], args.only_changed)
    return "".join(f"wrote {path}\n" for path in written) + verdict_line(comparison) + "\n"


def html_report(args: argparse.Namespace) -> str:
    from gpubench_tools.models.run_series import devices_named, select_device
    from gpubench_tools.reading.result_file import load
    from gpubench_tools.renderers.comparison_text import verdict_line
    from gpubench_tools.renderers.html_report import build_report, selected, write_page
    from gpubench_tools.writing.outputs import refuse_output_over_input

    refuse_output_over_input(args.output, args.results)
    loaded = [load(p) for p in args.results]
    multi = [len(devices_named(r)) > 1 for r in loaded]
    results = [selected(select_device(r, args.device), args.filter) for r in loaded]
    report = build_report(results, rules_from(args), args.report, multi, args.only_changed)
    write_page(args.output, report.html)
    return f"wrote {args.output}\n" + "".join(verdict_line(c) + "\n" for c in report.comparisons)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from gpubench_tools.reading.errors import GpubenchJsonError
    from gpubench_tools.reading.name_filter import FilterError
    from gpubench_tools.renderers.figures.family_plot import PlotError
    from gpubench_tools.writing.outputs import write_stdout

    try:
        write_stdout(markdown_report(args) if args.format == "markdown" else html_report(args))
    except (GpubenchJsonError, OSError) as error:
        return script_error(SCRIPT, error)
    except FilterError as error:
        return script_error(SCRIPT, f"--filter={error}")
    except PlotError as error:
        return script_error(SCRIPT, str(error))
    return 0
