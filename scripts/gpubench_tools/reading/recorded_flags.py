"""The gpubench flags that measure as a result was measured, read from its context: the filter,
Google Benchmark's times and interleaving, --energy, the devices, saxpy's --l2 where it is not
the default and each family flag; a result of another build type is refused (cli/flags.py
says what the command prints and why)."""

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
