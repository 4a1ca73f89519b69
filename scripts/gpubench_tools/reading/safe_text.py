"""Text from a result file, a run's stderr or the command line, made safe to show as text.

A benchmark name, a context value, a path or a stderr can hold anything: control characters,
line separators, lone surrogates (a JSON "\\ud800", or a file name that is not UTF-8), bytes
that are not UTF-8 (log_text), megabytes of it. Shown through these helpers, each stays one
line, encodes in any encoding, and is never read as markup: a figure draws it with mathtext off
(renderers/figures/setup.py), markdown escapes it here (markdown_text, markdown_code).
"""

import re

ELLIPSIS = "…"


def log_text(data: bytes) -> str:
    """Bytes a program wrote for a human to read (its stderr) as text: UTF-8, each byte that is
    not shown as \\xNN, as gpubench's messages show them and printable a control character. A
    crash can write any bytes, and the lines around them still say what happened."""
    return data.decode("utf-8", "backslashreplace")


def printable(text: object) -> str:
    """`text` as one printable line: control characters, line and paragraph separators and
    lone surrogates become Python escapes (\\n, \\x1b, \\u2028, \\udc80); the rest is kept."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
                   for ch in text)


def printable_lines(text: str) -> str:
    """`text` with each of its lines (split at newlines only) made printable: a report of many
    lines, whatever text from a file any line holds."""
    return "\n".join(printable(line) for line in text.split("\n"))


def shorten(text: str, limit: int) -> str:
    """`text`, or its first limit - 1 characters and an ellipsis where it is longer."""
    if limit < 1:
        raise ValueError(f"limit must be >= 1, not {limit}")
    return text if len(text) <= limit else text[:limit - 1] + ELLIPSIS


def one_line(text: object, limit: int = 1000) -> str:
    """A message as one printable line of at most `limit` characters: runs of whitespace (a
    newline in a file name) become one space, other unprintable characters escapes."""
    return shorten(printable(" ".join(str(text).split())), limit)


# Digits of the largest size a name holds: 2^63 - 1 (Google Benchmark's int64 arguments).
MAX_SIZE_DIGITS = 19


def ascii_decimal(text: str) -> int | None:
    """The value of `text` if it is 1 to MAX_SIZE_DIGITS ASCII decimal digits ("4096"), else
    None: "²", Arabic-Indic digits, "+1", " 1" and "1_000" are no size, though int() reads
    some, and neither are 5000 digits, which int() refuses."""
    if len(text) > MAX_SIZE_DIGITS or not (text.isascii() and text.isdigit()):
        return None
    return int(text)


# What markdown (CommonMark, and GitHub's tables, strikethrough and math) reads as markup wherever
# it stands in a line: an HTML tag, entity or autolink, a link or image, a code span, emphasis,
# strikethrough, a table's cell border, math, a heading's closing #. Each is written as the
# character reference that shows it as itself: one form that reads the same in markdown and in
# an HTML block (a family's name in a <details> summary), where a backslash escape would show.
_MARKDOWN_REFERENCES = {"&": "&amp;", "<": "&lt;", "[": "&#91;", "]": "&#93;", "`": "&#96;",
                        "*": "&#42;", "~": "&#126;", "|": "&#124;", "$": "&#36;", "#": "&#35;",
                        "!": "&#33;", "\\": "&#92;", "_": "&#95;"}
_MARKDOWN_SPECIAL = re.compile(r"[&<\[\]`*~|$#!]"
                               # A backslash escapes the ASCII punctuation after it, or breaks
                               # the line at a line's end.
                               r"|\\(?=[!-/:-@\[-`{-~]|$)"
                               # An underscore between two letters or digits is no emphasis.
                               r"|(?<![^\W_])_|_(?![^\W_])")
# What opens a block where a line starts, its character to escape last: indentation, a
# blockquote, a list item ("-", "+", "1.", "1)"), a thematic break or a setext heading's underline.
_LINE_START = re.compile(r"[ >]|[-+](?= |$)|[-=][-= ]*$|[0-9]{1,9}[.)](?= |$)")


def markdown_text(text: object, starts_line: bool = True) -> str:
    """`text` as markdown that renders as that text, printable (printable()): no HTML, link,
    image, code, emphasis, table cell or heading it holds is read as one. `starts_line`: the
    text may stand at a line's start, where a list item or blockquote could begin, so such a
    start is escaped too; False only where none can begin (a table cell). Not for a code span
    or an HTML attribute (markdown_code is for a code span)."""
    text = _MARKDOWN_SPECIAL.sub(lambda m: _MARKDOWN_REFERENCES[m.group()], printable(text))
    if starts_line and (block := _LINE_START.match(text)):
        marker = block.end() - 1 if block.group()[0].isdigit() else 0
        text = f"{text[:marker]}&#{ord(text[marker])};{text[marker + 1:]}"
    return text


def markdown_code(text: object) -> str:
    """`text` as a markdown code span, shown as it is (printable()): fenced by one backtick more
    than its longest run of backticks, and padded by a space, which the span drops, where it
    begins or ends with a backtick or with a space at both ends. Not in a table cell, where a
    | ends the cell even in a code span, nor in an HTML block, where a backtick is no fence."""
    text = printable(text)
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    if not text:
        return f"{fence} {fence}"
    pad = " " if "`" in (text[0], text[-1]) or (
        text[0] == text[-1] == " " and text.strip(" ")) else ""
    return f"{fence}{pad}{text}{pad}{fence}"
