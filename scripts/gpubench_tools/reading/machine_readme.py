"""What a machine folder's README.md says of it: its title (the first line) and its headline
results, the files the gallery draws.

The headline results are a section of the README headed `Headline results` (at any heading
level, `## Headline results` as a rule): each list item in it names one result file, as the
first `code` span of the item, by its path relative to the folder:

    ## Headline results

    - `suite/suite.json`: the default suite
    - `saxpy.json`

The section ends at the next heading of the same level or above. A README without it declares
none (None), which is not the same as an empty list.
"""

import re
from dataclasses import dataclass
from pathlib import Path

from gpubench_tools.reading.bounded_read import dangling_link, read_bounded
from gpubench_tools.reading.errors import GpubenchJsonError

# A machine's README.md gives the gallery its heading and headline list; a larger one is no
# README.
README_MAX_BYTES = 2**20
HEADLINE_HEADING = "headline results"

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_LIST_ITEM_PATH = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+`([^`]+)`")


@dataclass(frozen=True)
class MachineReadme:
    title: str | None
    headlines: list[str] | None  # paths relative to the folder, as listed; None: no section


def read_machine_readme(folder: Path) -> MachineReadme:
    """The folder's README.md; an empty MachineReadme without one. Raises GpubenchJsonError for
    a README that is no regular file or holds more than README_MAX_BYTES: neither is opened or
    read whole."""
    readme = folder / "README.md"
    if reason := dangling_link(readme):
        raise GpubenchJsonError(f"{readme}: {reason}; the gallery reads a machine's README.md")
    if not readme.exists():
        return MachineReadme(None, None)
    if not readme.is_file():
        raise GpubenchJsonError(f"{readme}: not a regular file; the gallery reads a machine's "
                                "README.md")
    data = read_bounded(readme, README_MAX_BYTES)
    if data is None:
        raise GpubenchJsonError(f"{readme}: larger than {README_MAX_BYTES // 2**20} MiB, the "
                                "largest README.md the gallery reads")
    lines = data.decode("utf-8", errors="replace").splitlines()
    title = (lines[0].lstrip("#").strip() or None) if lines else None
    return MachineReadme(title, headline_paths(lines))


def headline_paths(lines: list[str]) -> list[str] | None:
    """The paths listed under the `Headline results` heading; None where there is none."""
    paths: list[str] | None = None
    level = 0
    fenced = False
    for line in lines:
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        heading = None if fenced else _HEADING.match(line)
        if heading:
            if paths is not None and len(heading.group(1)) <= level:
                return paths
            if paths is None and heading.group(2).strip().lower() == HEADLINE_HEADING:
                paths, level = [], len(heading.group(1))
            continue
        if paths is not None and not fenced and (item := _LIST_ITEM_PATH.match(line)):
            paths.append(item.group(1).strip())
    return paths
