"""The child processes recording and the gate wait on, and what a stop signal does to them.

A stop signal (SIGINT, SIGTERM, SIGHUP) reaches the command as an exception in its main thread
(cli/process.py raises it wherever the command is). What is waiting on a child then stops it:
gpubench, and `gpubench-tools record` under the gate, get the same signal and are waited for,
so that no gpubench is left holding the GPU or writing later; a comparison is waited for, as it
is short. Further stop signals are ignored from then on, so the stop is not cut short. Once its
line is said, the command ends with exit status 128+N, as a shell gives it for signal N.
"""

import contextlib
import os
import signal
import subprocess
from collections.abc import Callable, Iterator, Sequence
from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

# The stop signal an exception stands for, or None for any other exception: the command line's
# knowledge (cli/process.py's Stopped), passed down.
StopSignal = Callable[[BaseException], int | None]


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def ignore_stop_signals() -> None:
    for number in STOP_SIGNALS:
        signal.signal(number, signal.SIG_IGN)


@contextlib.contextmanager
def stop_signals_held() -> Iterator[None]:
    """Stop signals wait until the block has ended (a short step that then says whether it
    wrote its output); one that came meanwhile is acted on as the block ends."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class Child:
    """A child process. With `own_group`, it runs in a process group (and session) of its own,
    and signals go to the whole group: gpubench and anything it started, and a terminal's
    Ctrl-C reaches it only through this process. With `passes_stop`, a stop signal is passed on
    to it, and SIGKILL follows `kill_after_s` later where it still runs (None: never);
    otherwise it is waited for."""

    def __init__(self, argv: Sequence[str], *, own_group: bool, passes_stop: bool,
                 kill_after_s: float | None = None, **popen: Any) -> None:
        self.own_group = own_group
        self.passes_stop = passes_stop
        self.kill_after_s = kill_after_s
        self.process = subprocess.Popen(list(argv), start_new_session=own_group, **popen)

    def wait(self, timeout_s: float | None = None) -> int | None:
        """Its exit status (-N where signal N killed it); None where it still runs after
        `timeout_s`."""
        try:
            return self.process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            return None

    def send(self, number: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if self.own_group:
                os.killpg(self.process.pid, number)
            elif self.process.returncode is None:
                self.process.send_signal(number)

    def end(self, number: int) -> int:
        """Sends signal `number`, then SIGKILL where it still runs `kill_after_s` later; its
        exit status."""
        self.send(number)
        status = self.wait(self.kill_after_s)
        if status is None:
            self.send(signal.SIGKILL)
            status = self.process.wait()
        return status

    def stop(self, number: int) -> int:
        """What stop signal `number` does to it: passed on (see end), or waited for."""
        return self.end(number) if self.passes_stop else self.process.wait()


def stopped_status(number: int) -> int:
    """The exit status of a command stopped by signal `number`."""
    return 128 + number


def exit_status(status: int) -> int:
    """A child's status as a shell gives it: 128+N where signal N killed it."""
    return 128 - status if status < 0 else status
