"""Render a table as aligned plain text (terminals, CI logs) or GitHub markdown (job summaries)."""

from collections.abc import Sequence


def render(headers: Sequence[str], rows: Sequence[Sequence[str]], markdown: bool = False) -> str:
    """The first column is left-aligned (names), the others right-aligned (numbers)."""
    if markdown:
        lines = [_markdown_row(headers), _markdown_row(["---"] + ["---:"] * (len(headers) - 1))]
        return "\n".join(lines + [_markdown_row(r) for r in rows])
    widths = [max(len(str(c)) for c in column) for column in zip(headers, *rows)]
    lines = [_text_row(headers, widths), _text_row(["-" * w for w in widths], widths)]
    return "\n".join(lines + [_text_row(r, widths) for r in rows])


def _markdown_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"


def _text_row(cells: Sequence[str], widths: Sequence[int]) -> str:
    first, *rest = cells
    padded = [str(first).ljust(widths[0])] + [str(c).rjust(w) for c, w in zip(rest, widths[1:])]
    return "  ".join(padded).rstrip()
