"""Text from a result file, a run's stderr or the command line, made safe to show as text.

A benchmark name, a context value, a path or a stderr can hold anything: control characters,
line separators, lone surrogates (a JSON "\\ud800", or a file name that is not UTF-8), bytes
that are not UTF-8 (log_text), megabytes of it. Shown through these helpers, each stays one
line, encodes in any encoding, and is never read as markup: a figure draws it with mathtext off
(renderers/figures/setup.py), a table escapes it here.
"""

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
