"""Prints the gpubench flags that measure as RESULT was measured, one a line, as far as its context
states them: the filter, Google Benchmark's minimum and warm-up times and random interleaving,
--energy, the devices, saxpy's --l2 where it is not the default, and each family flag the run was
given (gpubench states one under its own name: "--sizes": "1G,4G"). gpubench-tools gate records its
candidate with them, so a baseline recorded with a filter, another minimum time or other sizes is
compared with a candidate recorded alike, not refused as measured otherwise or lacking benchmarks
after minutes of runs. A key the context lacks gives no flag (gpubench's default), as does saxpy_l2
holding the default its gpubench_families declares for --l2: the candidate's context then lacks the
"--l2" a flag given adds, as the baseline's. The build type is no flag: the binary has its own,
which --build-type=TYPE names (gpubench --version states it, without a GPU): a result of another
build type (context gpubench_build_type), which no flag can measure as, is refused, as
gpubench-tools compare refuses it as measured otherwise; a result that states none is not.

  scripts/gpubench-tools flags results/h200/ci_baseline.json
  scripts/gpubench-tools flags --build-type=Release results/h200/ci_baseline.json

Exit status: 0 printed; 2 an unusable result, or a setting that is not text gpubench writes
(a number, a control character), a key in the shape of a flag that is no family flag, or one
flag stated twice with two values, in one line; 3 a result of another build type than
--build-type's, in one line (gpubench-tools compare's status for measured otherwise).
"""

import json
import re
import unicodedata

from gpubench_tools.reading.safe_text import one_line, printable, shorten
from gpubench_tools.reading.settings import (
    FILTER_KEY,
    INTERLEAVING_KEY,
    MEASUREMENT_SETTINGS,
    SETTING_SHOWN,
    setting_text,
)

# The settings a family flag sets, which gpubench states under the flag's name as well where the
# flag is given.
FAMILY_FLAG_SETTINGS = {"saxpy_l2": "--l2"}
# Each context key gpubench writes for a flag that sets what or how it measures, and that flag.
# "energy" holds how a window is taken; its flag takes no value.
FLAGS = {FILTER_KEY: "--benchmark_filter", "benchmark_min_time": "--benchmark_min_time",
         "benchmark_min_warmup_time": "--benchmark_min_warmup_time",
         INTERLEAVING_KEY: "--benchmark_enable_random_interleaving",
         "energy": "--energy", "selected_devices": "--device", **FAMILY_FLAG_SETTINGS}
# The measurement setting no flag sets: the build's own.
BUILD_TYPE_KEY = "gpubench_build_type"
NOT_FLAGS = {BUILD_TYPE_KEY}
# The exit status for another build type, as gpubench-tools compare's for measured otherwise.
OTHER_BUILD = 3
# A family flag as gpubench names them, which run_settings() states under that name. gpubench's
# own flags are not among them: those that measure are stated by keys of their own (FLAGS), and
# the others print in place of a run.
FAMILY_FLAG = re.compile(r"--[a-z0-9][a-z0-9-]*")
OWN_FLAGS = {"--device", "--energy", "--info", "--describe", "--help", "--version"}


# What gpubench never writes in its context (it writes such text escaped): control
# characters, line and paragraph separators, and lone surrogates (bytes that were not UTF-8).
UNWRITTEN = {"Cc", "Zl", "Zp", "Cs"}


class SettingError(Exception):
    """A setting no flag can give; str() is the one-line message."""


def flag_text(key: str, value: object) -> str:
    """`value`, the context's `key`, as the text a flag holds; SettingError where it is none."""
    if not isinstance(value, str) or any(unicodedata.category(ch) in UNWRITTEN for ch in value):
        shown = value if isinstance(value, str) else json.dumps(value)
        raise SettingError(f"context {printable(key)!r} is not text a flag can hold: "
                           f"{shorten(printable(shown), 80)}")
    return value


def declared_default(context: dict, flag: str) -> str | None:
    """The default of the family flag `flag` as the context's gpubench_families declares it;
    None where it declares none (a gpubench before --describe, or a context not of its shape)."""
    families = context.get("gpubench_families")
    families = families.get("families") if isinstance(families, dict) else None
    for family in families if isinstance(families, list) else ():
        flags = family.get("flags") if isinstance(family, dict) else None
        for declared in flags if isinstance(flags, list) else ():
            if isinstance(declared, dict) and declared.get("name") == flag:
                default = declared.get("default")
                return default if isinstance(default, str) else None
    return None


def stated_by_setting(context: dict, key: str, flag: str) -> bool:
    """Whether the setting `key` gives `flag`. A family flag given is stated under its own name
    too, so a setting that holds its flag's declared default (saxpy_l2 "cold" with no "--l2")
    was no flag given: stating it would set a key in the candidate's context that the
    baseline's lacks. Where no default is declared, the setting is the flag."""
    return key not in FAMILY_FLAG_SETTINGS or flag in context or \
        context[key] != declared_default(context, flag)


def recorded_flags(context: dict) -> list[str]:
    """The flags for the settings `context` states, in FLAGS' order, then the family flags in
    the context's; a flag stated twice (--l2 by saxpy_l2 and by its own name) once, and none
    for a family flag's setting that holds its default (stated_by_setting)."""
    given: dict[str, tuple[str, str]] = {}  # flag: (its text, the key that states it)
    keys = [(key, flag) for key, flag in FLAGS.items()
            if key in context and stated_by_setting(context, key, flag)]
    for key in context:
        if key.startswith("--"):
            if not FAMILY_FLAG.fullmatch(key) or key in OWN_FLAGS:
                raise SettingError(f"context {shorten(printable(key), 80)!r} names no family "
                                   f"flag of gpubench")
            keys.append((key, key))
    for key, flag in keys:
        value = flag_text(key, context[key])
        text = flag if key == "energy" else f"{flag}={value}"
        if flag in given and given[flag][0] != text:
            raise SettingError(f"context states {flag} twice: {given[flag][0]!r} "
                               f"({given[flag][1]}) and {shorten(printable(text), 80)!r} "
                               f"({key})")
        given.setdefault(flag, (text, key))
    return [text for text, _ in given.values()]


def other_build_type(context: dict, build_type: str) -> str | None:
    """Where `context` states a build type other than `build_type`, the one it states, as
    gpubench-tools compare reads and shows it; None where it states `build_type` or none."""
    setting = next(s for s in MEASUREMENT_SETTINGS if s.key == BUILD_TYPE_KEY)
    stated = setting_text(context, setting)
    return None if stated is None or stated == build_type else one_line(stated, SETTING_SHOWN)
