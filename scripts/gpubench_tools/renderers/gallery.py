"""The gallery's pages: a small page linking one page per machine folder, each drawing the
machine's headline results and linking the rest (cli/gallery.py says what the command does)."""

import os
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from gpubench_tools.models.comparison import natural_key
from gpubench_tools.models.run_series import devices_named, select_device
from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.reading.machine_readme import (
    README_MAX_BYTES,
    MachineReadme,
    read_machine_readme,
)
from gpubench_tools.reading.result_file import RESULT_SUFFIXES, load
from gpubench_tools.reading.results import Result
from gpubench_tools.reading.safe_text import one_line, printable, shorten
from gpubench_tools.renderers.family_figures import families, family_html, run_figures
from gpubench_tools.renderers.figures.family_plot import PlotError, check_families
from gpubench_tools.renderers.figures.pair_matrix import check_pair_gpus
from gpubench_tools.renderers.html_page import controls, esc, page

__all__ = ["README_MAX_BYTES", "SCRIPT", "gallery_pages", "json_files",
           "page_paths"]

SCRIPT = "gpubench-tools gallery"
# Each machine's page, in a folder named for the machine beside the index page.
PAGE_NAME = "index.html"


@dataclass(frozen=True)
class Entry:
    """One result file of a machine: its runs (one per GPU measured) or why it is left out."""
    path: Path  # relative to the results folder
    href: str  # the file, relative to the page
    runs: list[tuple[str, Result]]  # (label, result)
    skipped: str | None = None


@dataclass(frozen=True)
class Machine:
    name: str  # the folder's name
    readme: MachineReadme
    headlines: list[Entry]  # drawn, in the README's order
    others: list[Entry]  # linked, in path order, numbers as numbers (round2 before round10)
    missing: list[str]  # listed as headline results, but no result file of the folder


def json_files(folder: Path) -> list[Path]:
    """Every result file (RESULT_SUFFIXES) under `folder` that is not a folder, in path
    order. The walk keeps its own list of folders rather than recursing, so any depth is
    walked, and enters no link to a folder, so a link loop ends."""
    found, pending = [], [folder]
    while pending:
        for entry in folder_entries(pending.pop()):
            if entry.is_dir(follow_symlinks=False):
                pending.append(Path(entry.path))
            elif entry.name.endswith(RESULT_SUFFIXES) and not os.path.isdir(entry.path):
                found.append(Path(entry.path))
    return sorted(found)


def folder_entries(folder: Path) -> list[os.DirEntry[str]]:
    """What `folder` holds. Raises GpubenchJsonError for a folder that cannot be listed, its
    path cut short so that the reason stays in the line (a path past PATH_MAX is too long)."""
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except OSError as error:
        raise GpubenchJsonError(f"{shorten(printable(folder), 300)}: cannot list the folder "
                                f"({error.strerror or error})") from None


def not_regular(path: Path) -> str | None:
    """Why `path` is no file to open, or None for a regular file: opening a FIFO waits for a
    writer, and a device may never end."""
    try:
        mode = path.stat().st_mode
    except OSError as error:
        return error.strerror or str(error)
    return None if stat.S_ISREG(mode) else "not a regular file"


def read_entry(root: Path, path: Path, page_folder: Path) -> Entry:
    relative = path.relative_to(root)
    href = Path(os.path.relpath(os.path.realpath(path),
                                os.path.realpath(page_folder))).as_posix()
    reason = not_regular(path)
    if reason is not None:
        return Entry(relative, href, [], reason)
    try:
        result = load(path)
        check_pair_gpus(result)
        check_families(list(result.families))
        devices = devices_named(result)
        runs = [(describe(result), result)] if len(devices) <= 1 else [
            (f"{describe(result)}, GPU {d}", select_device(result, d)) for d in devices]
    except (GpubenchJsonError, PlotError) as error:
        return Entry(relative, href, [], one_line(str(error).removeprefix(f"{path}: "), 200))
    return Entry(relative, href, runs)


def describe(result: Result) -> str:
    return f"{result.gpu_name}, driver {result.driver_version}, CUDA {result.cuda_version}"


def page_paths(root: Path, index: Path) -> dict[str, Path]:
    """Where each machine's page goes: MACHINE/index.html in the index page's folder (the
    machine's own folder where the index is RESULTS_DIR/index.html)."""
    return {folder.name: index.parent / folder.name / PAGE_NAME
            for folder in sorted(p for p in root.iterdir() if p.is_dir())}


def read_machine(root: Path, folder: Path, page_folder: Path) -> Machine | None:
    """The machine of `folder`, its entries linked from `page_folder`; None where it holds no
    gpubench result."""
    entries = [read_entry(root, path, page_folder) for path in json_files(folder)]
    if not any(e.skipped is None for e in entries):
        return None
    readme = read_machine_readme(folder)
    by_path = {PurePosixPath(e.path.relative_to(folder.name).as_posix()): e for e in entries}
    if readme.headlines is None:
        chosen = [p for p in by_path if len(p.parts) == 1]
        missing = []
    else:
        chosen = list(dict.fromkeys(PurePosixPath(p) for p in readme.headlines
                                    if PurePosixPath(p) in by_path))
        missing = [p for p in readme.headlines if PurePosixPath(p) not in by_path]
    headlines = [by_path[p] for p in chosen]
    others = sorted((e for p, e in by_path.items() if p not in set(chosen)),
                    key=lambda e: natural_key(e.path.as_posix()))
    return Machine(folder.name, readme, headlines, others, missing)


def file_link(entry: Entry) -> str:
    # The href's bytes, as the file system holds them: a name need not be UTF-8.
    return f'<a href="{esc(quote(os.fsencode(entry.href)), 10_000)}">{esc(entry.path)}</a>'


def entry_html(entry: Entry, anchor: str) -> str:
    """A headline result: every figure of each run, under the file's link."""
    link = file_link(entry)
    if entry.skipped is not None:
        return f'<p class="note" id="{anchor}" data-name="{esc(entry.path)}">{link}: left ' \
               f"out ({esc(entry.skipped)})</p>"
    parts = []
    for label, result in entry.runs:
        run = run_figures(0, label, result)
        figures = "".join(f'<section class="family" data-name="{esc(f)}"><h4>{esc(f)}</h4>'
                          f"{family_html([run], f, {})}</section>" for f in families([run]))
        parts.append(f"<p>{esc(label)}: {len(result.benchmarks)} benchmarks</p>{figures}")
    return (f'<details class="result" id="{anchor}" data-name="{esc(entry.path)}" open>'
            f"<summary>{link}</summary>{''.join(parts)}<p>Every figure above: {link}</p></details>")


def listed_html(entry: Entry) -> str:
    """A result file linked, not drawn: what it holds, or why it is left out."""
    if entry.skipped is not None:
        what = f"left out ({esc(entry.skipped)})"
    else:
        label, result = entry.runs[0]
        gpus = f", {len(entry.runs)} GPUs" if len(entry.runs) > 1 else ""
        what = f"{esc(result.gpu_name)}{gpus}, {len(result.benchmarks)} benchmarks"
    return f'<li data-name="{esc(entry.path)}">{file_link(entry)}: {what}</li>'


def machine_facts(machine: Machine) -> str:
    first = next((r for e in machine.headlines + machine.others for _, r in e.runs), None)
    if first is None:
        return ""
    return (f"{esc(first.gpu_name)}, {esc(first.context_text('gpu_count') or '1')} GPU(s) in "
            f"the machine, driver {esc(first.driver_version)}")


def headline_rule(machine: Machine) -> str:
    if machine.readme.headlines is None:
        return ("Its README.md lists no headline results (a list of paths under a "
                "“## Headline results” heading): the result files at the top of the "
                "folder are drawn.")
    return ("The headline results its README.md lists under “## Headline results”"
            " are drawn.")


def machine_page(machine: Machine, index_name: str) -> str:
    """The machine's page, beside the index page named `index_name`, one folder up."""
    name = esc(machine.name)
    title = machine.readme.title
    missing = "".join(f"<li>{esc(p)}: listed under Headline results, but no result file of "
                      "the folder</li>" for p in machine.missing)
    others = "".join(listed_html(e) for e in machine.others)
    contents = "".join(f'<li><a href="#result-{i}">{esc(e.path)}</a></li>'
                       for i, e in enumerate(machine.headlines))
    back = esc("../" + quote(os.fsencode(index_name)), 10_000)
    body = (f'<p><a href="{back}">every machine</a></p>'
            f"<h1>gpubench on {name}</h1>"
            + (f"<p>{esc(title)}</p>" if title else "")
            + f"<p>{machine_facts(machine)}. {headline_rule(machine)} Each figure links to the "
            "JSON file behind it; a band is the smallest to the largest repetition. "
            f"{len(machine.others)} other result file(s) are linked below the figures.</p>"
            + (f"<ul>{contents}</ul>" if contents else "")
            + (f'<ul class="note">{missing}</ul>' if missing else "")
            + controls([], [], "benchmark or file name")
            + "".join(entry_html(e, f"result-{i}") for i, e in enumerate(machine.headlines))
            + (f"<h2>Other result files, linked, not drawn</h2><ul>{others}</ul>"
               if others else ""))
    return page(f"gpubench on {machine.name}", body, 0)


def index_page(machines: list[Machine], strays: list[Entry]) -> str:
    items = []
    for m in machines:
        title = f": {esc(m.readme.title)}" if m.readme.title else ""
        href = esc(quote(os.fsencode(m.name)) + "/" + PAGE_NAME, 10_000)
        items.append(f'<li><a href="{href}">{esc(m.name)}</a>{title}. {machine_facts(m)}; '
                     f"{len(m.headlines)} headline result(s) drawn, {len(m.others)} other "
                     "result file(s) linked</li>")
    body = ("<h1>gpubench: the machines measured</h1>"
            "<p>A page per machine folder: the headline results its README.md lists, drawn, "
            "and every other result file, linked.</p>"
            f'<ul class="machines">{"".join(items)}</ul>'
            + ("<h2>Other JSON files</h2><ul>" + "".join(listed_html(e) for e in strays)
               + "</ul>" if strays else ""))
    return page("gpubench: the machines measured", body, 0)


def gallery_pages(root: Path, index: Path) -> dict[Path, str]:
    """Every page, by where it is written: the index first, then each machine's
    (page_paths); links are relative to each page."""
    paths = page_paths(root, index)
    machines, strays = [], []
    for name, machine_page_path in paths.items():
        machine = read_machine(root, root / name, machine_page_path.parent)
        if machine is not None:
            machines.append(machine)
        else:
            strays += [read_entry(root, path, index.parent) for path in json_files(root / name)]
    if not machines:
        raise GpubenchJsonError(f"{root}: no gpubench result in its folders")
    pages = {index: index_page(machines, strays)}
    for machine in machines:
        pages[paths[machine.name]] = machine_page(machine, index.name)
    return pages
