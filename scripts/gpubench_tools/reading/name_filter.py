"""A --filter or --headline: a regular expression searched for in benchmark names, in bounded time.

Python's re backtracks, and has no timeout: a pattern of nested quantifiers such as `(a+)+$`
takes time exponential in the length of a name it does not match (a 40-character name: hours).
Its matcher does check for signals as it runs, so `select` matches all the names it is given
under one interval timer of MATCH_SECONDS; past it, the filter is refused with one line naming
the limit. A pattern holds at most MAX_FILTER_CHARS characters, as gpubench's own
--benchmark_filter does. The timer needs the main thread (where the toolkit runs); elsewhere
`select` matches without one.

`selecting(names)` writes the other way round: a filter, in the syntax gpubench's --benchmark_filter
takes, that selects exactly the named benchmarks (and their `/manual_time`, `/device:N` or other
suffixes); `changed_filter(names)` is the filter gpubench-tools compare --changed-filter writes,
with which gpubench-tools gate names what it confirms.
"""

import re
import signal
import threading
from collections.abc import Iterable
from dataclasses import dataclass

MAX_FILTER_CHARS = 1024
MATCH_SECONDS = 2.0


class FilterError(ValueError):
    """A filter that is no regular expression, too long, or too slow: str() is `<filter>:
    <problem>`, `problem` the problem alone."""

    def __init__(self, text: str, problem: str) -> None:
        super().__init__(f"{text}: {problem}")
        self.problem = problem


class _OutOfTime(Exception):
    pass


@dataclass(frozen=True)
class NameFilter:
    text: str  # as given, for messages
    pattern: re.Pattern[str]

    def select(self, names: Iterable[str]) -> list[str]:
        """The names the pattern finds (re.search), in their order. Raises FilterError where
        matching all of them takes longer than MATCH_SECONDS."""
        names = list(names)
        if threading.current_thread() is not threading.main_thread():
            return [n for n in names if self.pattern.search(n)]

        def out_of_time(signum: int, frame: object) -> None:
            raise _OutOfTime

        previous = signal.signal(signal.SIGALRM, out_of_time)
        try:
            signal.setitimer(signal.ITIMER_REAL, MATCH_SECONDS)
            return [n for n in names if self.pattern.search(n)]
        except _OutOfTime:
            raise FilterError(self.text, f"matching {len(names)} benchmark names takes longer "
                              f"than {MATCH_SECONDS:g} s (Python's re backtracks without end on "
                              "nested quantifiers such as (a+)+$); write it without them") \
                from None
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)

    def search(self, name: str) -> bool:
        return bool(self.select([name]))


def name_filter(text: str) -> NameFilter:
    """`text` compiled; FilterError for a pattern that is too long or no regular expression."""
    if len(text) > MAX_FILTER_CHARS:
        raise FilterError(f"{text[:40]}...", f"{len(text)} characters, more than the "
                          f"{MAX_FILTER_CHARS} a filter holds")
    try:
        return NameFilter(text, re.compile(text))
    except (re.error, RecursionError, OverflowError) as error:
        raise FilterError(text, f"not a regular expression ({error})") from None


def _escaped(text: str) -> str:
    """`text` matched literally: every character but letters, digits and `_` behind a `\\`,
    which both gpubench's filter and Python's re read as that character."""
    return "".join(c if c.isascii() and (c.isalnum() or c == "_") else "\\" + c for c in text)


def selecting(names: Iterable[str]) -> str | None:
    """A filter selecting the benchmarks `names` and nothing else, with their common leading
    components written once (`^copy/HtoD/(pinned/async/1048576|pageable/sync/64)(/|$)`); None
    where no name is given, a name holds a character no gpubench name does (a control
    character, a line break: the filter is one line), or the filter would be longer than
    MAX_FILTER_CHARS."""
    tree: dict = {}
    for name in names:
        if not name.isprintable():
            return None
        node = tree
        for part in name.split("/"):
            node = node.setdefault(part, {})
        node.clear()
        node[None] = {}  # the name ends here: its prefix selects whatever lies below it

    def pattern(node: dict) -> str:
        ways = [_escaped(part) + ("" if None in below else "/" + pattern(below))
                for part, below in node.items()]
        return ways[0] if len(ways) == 1 else "(" + "|".join(ways) + ")"

    if not tree:
        return None
    text = "^" + pattern(tree) + "(/|$)"
    return text if len(text) <= MAX_FILTER_CHARS else None


def changed_filter(names: Iterable[str]) -> str | None:
    """The filter of the changed benchmarks `names`: exactly them, or where that takes more
    than a filter holds (a change across much of the suite), every benchmark of their families;
    None for no names, or names no filter can select."""
    names = list(names)
    return selecting(names) or selecting(sorted({name.split("/")[0] for name in names}))
