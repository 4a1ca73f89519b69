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

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from gpubench_tools.models.run_series import devices_named, select_device
from gpubench_tools.reading.bounded_read import dangling_link, read_bounded
from gpubench_tools.reading.results import RESULT_SUFFIXES, GpubenchJsonError, Result, load
from gpubench_tools.reading.safe_text import one_line, printable, shorten
from gpubench_tools.renderers.family_figures import families, family_html, run_figures
from gpubench_tools.renderers.figures.family_plot import PlotError, check_families
from gpubench_tools.renderers.figures.pair_matrix import check_pair_gpus
from gpubench_tools.renderers.html_page import controls, esc, page

SCRIPT = "gpubench-tools gallery"
DEFAULT_RESULTS = Path(__file__).resolve().parent.parent / "results"
# A machine's README.md gives its heading its first line; a larger one is no README.
README_MAX_BYTES = 2**20


@dataclass(frozen=True)
class Entry:
    """One result file of a machine: its runs (one per GPU measured) or why it is left out."""
    path: Path  # relative to the results folder
    href: str  # the file, relative to the page
    runs: list[tuple[str, Result]]  # (label, result)
    skipped: str | None = None


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


def machines(root: Path, page_folder: Path) -> dict[str, list[Entry]]:
    found: dict[str, list[Entry]] = {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        entries = [read_entry(root, path, page_folder) for path in json_files(folder)]
        if entries:
            found[folder.name] = entries
    return found


def readme_title(folder: Path) -> str | None:
    """The first line of the folder's README.md, its '#'s left out; None without a README.
    Raises GpubenchJsonError for a README that is no regular file or holds more than
    README_MAX_BYTES: neither is opened or read whole."""
    readme = folder / "README.md"
    if reason := dangling_link(readme):
        raise GpubenchJsonError(f"{readme}: {reason}; the gallery reads a machine's README.md")
    if not readme.exists():
        return None
    reason = not_regular(readme)
    if reason is not None:
        raise GpubenchJsonError(f"{readme}: {reason}; the gallery reads a machine's README.md")
    data = read_bounded(readme, README_MAX_BYTES)
    if data is None:
        raise GpubenchJsonError(f"{readme}: larger than {README_MAX_BYTES // 2**20} MiB, the "
                                "largest README.md the gallery reads")
    lines = data.decode("utf-8", errors="replace").splitlines()
    return (lines[0].lstrip("#").strip() or None) if lines else None


def entry_html(entry: Entry) -> str:
    # The href's bytes, as the file system holds them: a name need not be UTF-8.
    link = f'<a href="{esc(quote(os.fsencode(entry.href)), 10_000)}">{esc(entry.path)}</a>'
    if entry.skipped is not None:
        return f'<p class="note">{link}: left out ({esc(entry.skipped)})</p>'
    parts = []
    for label, result in entry.runs:
        run = run_figures(0, label, result)
        figures = "".join(f"<h4>{esc(f)}</h4>{family_html([run], f, {})}"
                          for f in families([run]))
        parts.append(f"<p>{esc(label)}: {len(result.benchmarks)} benchmarks</p>{figures}")
    return (f'<details class="result" data-name="{esc(entry.path)}" open><summary>{link}'
            f"</summary>{''.join(parts)}<p>Every figure above: {link}</p></details>")


def machine_html(root: Path, name: str, entries: list[Entry]) -> str:
    title = readme_title(root / name)
    first = next((r for e in entries for _, r in e.runs), None)
    facts = "" if first is None else (
        f"{esc(first.gpu_name)}, {esc(first.context_text('gpu_count') or '1')} GPU(s) in the "
        f"machine, driver {esc(first.driver_version)}")
    kept = sum(e.skipped is None for e in entries)
    return (f'<section class="machine" id="machine-{esc(name)}"><h2>{esc(name)}</h2>'
            + (f"<p>{esc(title)}</p>" if title else "")
            + f"<p>{facts}; {kept} result file(s)</p>"
            + "".join(entry_html(e) for e in entries) + "</section>")


def gallery_html(root: Path, page_folder: Path) -> str:
    """The page, its links relative to `page_folder`, where it is written."""
    found = machines(root, page_folder)
    if not any(e.skipped is None for entries in found.values() for e in entries):
        raise GpubenchJsonError(f"{root}: no gpubench result in its folders")
    measured = {n: entries for n, entries in found.items()
                if any(e.skipped is None for e in entries)}
    others = [e for n, entries in found.items() if n not in measured for e in entries]
    index = "".join(f'<li><a href="#machine-{esc(n)}">{esc(n)}</a></li>' for n in measured)
    body = ("<h1>gpubench: the machines measured</h1>"
            "<p>Every result under this folder, per machine; each figure links to the JSON "
            "file behind it. A band is the smallest to the largest repetition.</p>"
            f"<ul>{index}</ul>" + controls([], [], "benchmark or file name")
            + "".join(machine_html(root, n, entries) for n, entries in measured.items())
            + ("<h2>Other JSON files</h2>" + "".join(entry_html(e) for e in others)
               if others else ""))
    return page("gpubench: the machines measured", body, 0)
