"""The pieces every section of gpubench-tools fleet's report is made of: its heading, its table and
a figure with its unit. Cells hold text from the files, escaped (text_table), never interpreted."""

from gpubench_tools.reading.safe_text import shorten
from gpubench_tools.renderers.text_table import render

# The longest cell a table shows, and the longest item of a list cell (a host, a GPU, a model):
# text from a file can be megabytes long, and a table pads every row to its widest cell.
CELL_CHARS = 2000
ITEM_CHARS = 300


def figure(value: float, unit: str) -> str:
    return f"{value:.4g} {unit}"


def heading(text: str, markdown: bool) -> str:
    return f"\n### {text}" if markdown else f"\n== {text} =="


def table(headers: list[str], rows: list[list[str]], markdown: bool, lists: bool = False,
          align: str = "left") -> str:
    """A table; in markdown, after a blank line, so that two tables stay two. Each cell is
    shortened to CELL_CHARS, but for `lists`, whose cells list items (each shortened with
    item(), so such a cell grows with the fleet alone). Its columns after the first are `align`ed
    (text_table.render): "right" for a matrix of numbers."""
    if not lists:
        rows = [[shorten(cell, CELL_CHARS) for cell in row] for row in rows]
    text = render(headers, rows, markdown=markdown, align=align)
    return f"\n{text}" if markdown else text


def item(text: object) -> str:
    """One item of a list cell, shortened to ITEM_CHARS."""
    return shorten(str(text), ITEM_CHARS)
