"""The lines `gpubench-tools record` and `gpubench-tools gate` write on stderr."""

import sys


def shown(text: str) -> str:
    """`text` as a line shows it: each character that does not print (a control character, a
    line separator, a byte that is not UTF-8) as ?."""
    return "".join(c if c.isprintable() else "?" for c in text)


def say(script: str, line: str) -> None:
    """One line on stderr, `script: line`, flushed before a child process writes there."""
    sys.stdout.flush()
    print(f"{script}: {line}", file=sys.stderr, flush=True)
