#!/usr/bin/env python3
"""A report comparing two gpubench runs, for a person: DIR/report.md and figures; or, where
-o names an .html file, one self-contained page comparing two or more runs (html_report.py:
`report.py A.json B.json [C.json ...] -o report.html`).

report.md holds what compare.py decides (the mode, the verdict rule, the context keys that
differ, a geometric-mean summary per family, the benchmarks in one file only, the table of every
benchmark) and one PNG per family that overlays both runs, drawn by family_plot as plot.py draws
it (the same panels, axes and labels): a colour per curve, solid lines and circles for BASE,
dashed lines and crosses for NEW, the legend outside the data, log axes where the values are
above 0 and span a decade or more.

Exit status: 0 written (whatever the verdicts), 2 unusable input, bad usage, a report that
could not be written (report.md and the figures are written all or none: then no file of DIR is
changed), or a file of DIR that is an input (then nothing is written).
"""

import script_process  # noqa: F401  (imported first)
import argparse
import sys
from pathlib import Path

import figure_setup  # noqa: F401  (before matplotlib: the backend, mathtext off)
import html_report
from matplotlib.figure import Figure
from bounded_read import dangling_link
from compare import add_comparison_options, load_pair, rules_from
from comparison import Comparison, compare
from comparison_text import (context_section, family_tables, header_section, notes_section,
                             only_in_one_section, paired_section, summary_section, verdict_line)
from family_plot import (PlotError, Source, check_families, family_figure, figure_stems,
                         ordered_families)
from figure_setup import figure_bytes
from gpubench_json import GpubenchJsonError, Result
from name_filter import FilterError
from safe_text import printable_lines
from script_cli import (OneLineArgumentParser, refuse_output_over_input, script_error,
                        write_outputs, write_stdout)

SCRIPT = "report.py"
FILE_LABELS = ("BASE", "NEW")
FILE_STYLES = (("-", "o", ""), ("--", "x", "///"))  # line style, marker, bar hatch


def file_legend_labels(results: tuple[Result, Result]) -> list[str]:
    names = [r.path.name for r in results]
    if len(set(names)) < len(names):  # same file name in two folders
        names = [str(r.path) for r in results]
    return [f"{label}: {name} ({result.describe()})"
            for label, name, result in zip(FILE_LABELS, names, results)]


def sources_of(results: tuple[Result, Result]) -> list[Source]:
    return [Source(result, label, *style)
            for result, label, style in zip(results, file_legend_labels(results), FILE_STYLES)]


def family_figures(comparison: Comparison, directory: Path) -> list[tuple[Path, Figure]]:
    """One figure per family either file holds, both files overlaid, with its path: a name of
    its own (family_plot.figure_stems), so no figure is written over another."""
    sources = sources_of((comparison.base, comparison.cont))
    figures = []
    families = list(ordered_families(s.result for s in sources))
    check_families(families)
    for family, stem in zip(families, figure_stems(families)):
        fig = family_figure(sources, family, f"{family}: BASE solid, NEW dashed")
        if fig is not None:
            figures.append((directory / f"{stem}.png", fig))
    return figures


def report_markdown(comparison: Comparison, figures: list[Path], only_changed: bool) -> str:
    blocks = [*header_section(comparison, True, title="gpubench report", level=1),
              *summary_section(comparison, True), *context_section(comparison, True),
              *only_in_one_section(comparison, True)]
    if figures:
        blocks.append("### Figures")
        blocks += [f"![{path.stem}]({path.name})" for path in figures]
    blocks.append("### Benchmarks")
    for title, table in family_tables(comparison, True, only_changed):
        # Folded: a suite is hundreds of rows; the summary above is what is read first.
        body = table if table is not None else "No benchmark changed."
        blocks.append(f"<details><summary>{title}</summary>\n\n{body}\n\n</details>")
    blocks += [*paired_section(comparison, True), *notes_section(comparison),
               verdict_line(comparison)]
    return printable_lines("\n\n".join(blocks) + "\n")


def write_report(comparison: Comparison, directory: Path, inputs: list[Path],
                 only_changed: bool) -> list[Path]:
    """Writes the figures and report.md into `directory`, all of them or none (write_outputs),
    so that report.md never sits beside figures it does not describe; returns their paths. Each
    is checked against the inputs and drawn first, so that nothing is written where a file would
    replace an input or a figure cannot be drawn."""
    figures = family_figures(comparison, directory)
    figure_paths = [path for path, _ in figures]
    report = directory / "report.md"
    for path in [*figure_paths, report]:
        refuse_output_over_input(path, inputs)
    files = {path: figure_bytes(fig, path, dpi=100, bbox_inches="tight") for path, fig in figures}
    # A lone surrogate in a name (JSON "\\ud800") is written as that escape.
    files[report] = report_markdown(comparison, figure_paths, only_changed).encode(
        "utf-8", "backslashreplace")
    output_directory(directory)
    write_outputs(files)
    return list(files)


def output_directory(path: Path) -> None:
    """Creates the report's folder where its parent exists; OSError with a one-line reason
    otherwise."""
    if reason := dangling_link(path):
        raise NotADirectoryError(20, f"{reason}; give a folder", str(path))
    if path.exists() and not path.is_dir():
        raise NotADirectoryError(20, "exists and is not a directory", str(path))
    if not path.parent.is_dir():
        raise FileNotFoundError(2, f"its parent {path.parent} is not a directory", str(path))
    path.mkdir(exist_ok=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    # Options by their whole names (html_report.OUTPUT_OPTIONS says why).
    parser = OneLineArgumentParser(prog=SCRIPT, description=__doc__, allow_abbrev=False,
                                   formatter_class=argparse.RawDescriptionHelpFormatter,
                                   epilog="With -o REPORT.html the page takes two or more runs "
                                          "and options of its own (--device among them): "
                                          "report.py -o REPORT.html --help lists them.")
    parser.add_argument("baseline", type=Path, metavar="BASE.json")
    parser.add_argument("contender", type=Path, metavar="NEW.json")
    parser.add_argument(*html_report.OUTPUT_OPTIONS, dest="output_dir", type=Path,
                        required=True, metavar="DIR",
                        help="folder for report.md and the figures (created if its parent "
                             "exists)")
    add_comparison_options(parser)
    parser.add_argument("--report", action="store_true",
                        help="no regression check even when GPU, driver and CUDA match")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if html_report.wants_html(argv):
        return html_report.main(argv)
    args = parse_args(argv)
    try:
        base, cont = load_pair(args.baseline, args.contender, args.filter)
        comparison = compare(base, cont, rules_from(args), args.report, args.filter)
        written = write_report(comparison, args.output_dir, [args.baseline, args.contender],
                               args.only_changed)
        write_stdout("".join(f"wrote {path}\n" for path in written)
                     + verdict_line(comparison) + "\n")
    except (GpubenchJsonError, OSError) as error:
        return script_error(SCRIPT, error)
    except FilterError as error:
        return script_error(SCRIPT, f"--filter={error}")
    except PlotError as error:
        return script_error(SCRIPT, str(error))
    return 0


if __name__ == "__main__":
    sys.exit(main())
