"""A --filter or --headline: a regular expression searched for in benchmark names, in bounded time.

Python's re backtracks, and has no timeout: a pattern of nested quantifiers such as `(a+)+$`
takes time exponential in the length of a name it does not match (a 40-character name: hours).
Its matcher does check for signals as it runs, so `select` matches all the names it is given
under one interval timer of MATCH_SECONDS; past it, the filter is refused with one line naming
the limit. A pattern holds at most MAX_FILTER_CHARS characters, as gpubench's own
--benchmark_filter does. The timer needs the main thread (where the scripts run); elsewhere
`select` matches without one.
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
