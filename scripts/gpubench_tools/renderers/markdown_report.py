"""The markdown report of two runs: report.md, opening with compare's verdict and the changed
benchmarks, and one figure per family overlaying both runs. Text from the files renders as text
(safe_text.markdown_text), as in compare's markdown."""

from pathlib import Path

from gpubench_tools.models.comparison import Comparison
from gpubench_tools.reading.bounded_read import dangling_link
from gpubench_tools.reading.results import Result
from gpubench_tools.reading.safe_text import markdown_text, printable_lines
from gpubench_tools.renderers.comparison_text import (
    context_section,
    header_section,
    notes_section,
    only_in_one_section,
    paired_section,
    summary_section,
    tables_section,
    verdict_line,
)
from gpubench_tools.renderers.figures.family_plot import (
    check_families,
    family_figure,
    figure_stems,
    ordered_families,
)
from gpubench_tools.renderers.figures.panels import Source, make_source
from gpubench_tools.renderers.figures.setup import Figure, figure_bytes
from gpubench_tools.writing.outputs import refuse_output_over_input, write_outputs

FILE_LABELS = ("BASE", "NEW")


def file_legend_labels(results: tuple[Result, Result]) -> list[str]:
    names = [r.path.name for r in results]
    if len(set(names)) < len(names):  # same file name in two folders
        names = [str(r.path) for r in results]
    return [f"{label}: {name} ({result.describe()})"
            for label, name, result in zip(FILE_LABELS, names, results)]


def sources_of(results: tuple[Result, Result]) -> list[Source]:
    return [make_source(result, label, index)
            for index, (result, label) in enumerate(zip(results, file_legend_labels(results)))]


def family_figures(comparison: Comparison, directory: Path) -> list[tuple[Path, Figure]]:
    """One figure per family either file holds, with its path: a name of its own
    (family_plot.figure_stems), so no figure is written over another. Each panel shows NEW's
    ratio to BASE with its resolution band, the values of both beside it, as the HTML report's
    panels do."""
    sources = sources_of((comparison.base, comparison.cont))
    ratios = {1: {row.name: row for row in comparison.rows}}
    figures = []
    families = list(ordered_families(s.result for s in sources))
    check_families(families)
    for family, stem in zip(families, figure_stems(families)):
        fig = family_figure(sources, family, f"{family}: NEW against BASE", ratios=ratios)
        if fig is not None:
            figures.append((directory / f"{stem}.png", fig))
    return figures


def report_markdown(comparison: Comparison, figures: list[Path], only_changed: bool) -> str:
    blocks = [*header_section(comparison, True, title="gpubench report", level=1),
              *summary_section(comparison, True), *context_section(comparison, True),
              *only_in_one_section(comparison, True)]
    if figures:
        blocks.append("### Figures")
        # A figure's file is named for its family (figure_stems), of characters a link keeps.
        blocks += [f"![{markdown_text(path.stem)}]({path.name})" for path in figures]
    # Each family's table folded: a suite is hundreds of rows; the summary above is read first.
    blocks += ["### Benchmarks", *tables_section(comparison, True, only_changed),
               *paired_section(comparison, True), *notes_section(comparison, True),
               markdown_text(verdict_line(comparison))]
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
