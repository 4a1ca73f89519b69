"""Render a table as aligned plain text (terminals, CI logs) or GitHub markdown (job summaries)."""

from collections.abc import Sequence

from gpubench_tools.reading.safe_text import markdown_text, printable


def render(headers: Sequence[str], rows: Sequence[Sequence[str]], markdown: bool = False,
           align: str = "right") -> str:
    """The first column is left-aligned (names), the others `align`ed: "right" (numbers) or
    "left" (text). A cell's control characters are escaped, so every row stays one line; in
    markdown, a cell renders as its text (markdown_text), whatever markup it holds."""
    if align not in ("left", "right"):
        raise ValueError(f"align must be 'left' or 'right', not {align!r}")
    headers = [printable(h) for h in headers]
    rows = [[printable(c) for c in row] for row in rows]
    if markdown:
        rule = "---" if align == "left" else "---:"
        lines = [_markdown_row(headers), _markdown_row(["---"] + [rule] * (len(headers) - 1))]
        return "\n".join(lines + [_markdown_row(r) for r in rows])
    widths = [max(len(c) for c in column) for column in zip(headers, *rows)]
    lines = [_text_row(headers, widths, align), _text_row(["-" * w for w in widths], widths, align)]
    return "\n".join(lines + [_text_row(r, widths, align) for r in rows])


def _markdown_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(markdown_text(c, starts_line=False) for c in cells) + " |"


def _text_row(cells: Sequence[str], widths: Sequence[int], align: str) -> str:
    first, *rest = cells
    pad = str.ljust if align == "left" else str.rjust
    padded = [first.ljust(widths[0])] + [pad(c, w) for c, w in zip(rest, widths[1:])]
    return "  ".join(padded).rstrip()
