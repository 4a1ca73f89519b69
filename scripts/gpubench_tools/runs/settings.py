"""The recording's settings from the environment: GPUBENCH_RUNS, the number of runs (2 to 1000,
default 5), and GPUBENCH_RUN_TIMEOUT, the seconds each run may take (1 to 86400, default 1800: the
default suite takes 70.6 s on an H100, so only a run that hangs comes near it). An empty variable
is its default. `gpubench-tools gate`, which passes them on to `gpubench-tools record`, checks them
so too, before its first run, and GPUBENCH_CONFIRM_RUNS, the runs that confirm a change (2 to 1000,
default GPUBENCH_RUNS)."""

import re
from collections.abc import Mapping
from dataclasses import dataclass

from gpubench_tools.runs.messages import shown

RUNS_DEFAULT = 5
RUN_TIMEOUT_DEFAULT_S = 1800


class SettingError(ValueError):
    """A setting out of its range, as its one line says."""


@dataclass(frozen=True)
class RecordingSettings:
    runs: int
    run_timeout_s: int


def recording_settings(environ: Mapping[str, str]) -> RecordingSettings:
    """The settings `environ` gives; SettingError names the first out of its range."""
    return RecordingSettings(
        runs=_whole_number(environ, "GPUBENCH_RUNS", RUNS_DEFAULT, 2, 1000, "a whole number"),
        run_timeout_s=_whole_number(environ, "GPUBENCH_RUN_TIMEOUT", RUN_TIMEOUT_DEFAULT_S, 1,
                                    86400, "a whole number of seconds"))


def confirming_runs(environ: Mapping[str, str], runs: int) -> int:
    """GPUBENCH_CONFIRM_RUNS: the gate's runs that confirm a change, `runs` where unset or empty;
    SettingError where it is out of its range."""
    return _whole_number(environ, "GPUBENCH_CONFIRM_RUNS", runs, 2, 1000, "a whole number")


def _whole_number(environ: Mapping[str, str], name: str, default: int, low: int, high: int,
                  noun: str) -> int:
    """Decimal digits only, leading zeros read as decimal (007 is 7, not octal), no sign or
    space: the value CI wrote is the value used, or refused."""
    value = environ.get(name) or str(default)
    if re.fullmatch(r"[0-9]{1,6}", value) and low <= int(value) <= high:
        return int(value)
    raise SettingError(f"{name} must be {noun} from {low} to {high}, not '{shown(value)}'")
