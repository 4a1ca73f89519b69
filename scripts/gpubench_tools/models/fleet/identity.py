"""What makes two GPUs alike for the fleet: each part of a group's key read for what it means, not
for its spelling.

Grouping apart is the loose direction: a GPU set apart from its like is judged by less (by floors
alone where its group is too small to compare), so what cannot change a figure must not set a GPU
apart. A GPU model and a driver are compared without case, spacing or Unicode compatibility forms
(`NVIDIA h200`, `NVIDIA  H200 ` and `NVIDIA H200` are one model); a driver's numeric parts as
numbers (`575.57.08`, `575.57.8`). A gpubench version is compared without the suffixes a build from
a working tree adds to its commit (`git describe --dirty`'s `-dirty`, `--broken`'s `-broken`,
`-modified`, setuptools-scm's `.dYYYYMMDD`): a local build of the commit is the commit as far as
the version can tell. A measurement setting is compared as a number and its unit where it is one
(`0.0s`, `0s`, `0`, `0e0s` for `benchmark_min_time`, whose bare number Google Benchmark reads as
seconds), else as text without case or spacing. The host CPU is its CPU count and caches, numbers
read as numbers and caches in any order, and its clock within MHZ_BAND (bands()).
"""

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from gpubench_tools.reading.fleet.records import Gpu
from gpubench_tools.reading.safe_text import one_line
from gpubench_tools.reading.settings import MEASUREMENT_SETTINGS, SETTING_SHOWN, setting_text

# Google Benchmark's mhz_per_cpu is the clock of the host's first CPU as Linux reports it when the
# run starts (/proc/cpuinfo's `cpu MHz`, or the TSC's where the kernel gives it): with frequency
# scaling, a current frequency that moves between runs of one host (2100 and 2101 on two
# identical VMs). GPUs whose hosts' clocks lie within 5% of a neighbour's, in order of clock, are
# one band: a host-paced figure moves at most in proportion to the CPU's clock, so 5% is a third
# of the host-timed margin (15%) and leaves device-timed figures alone, while CPU models of one
# core count and caches differ in base clock by 100 MHz or more (5% at 2 GHz) and their caches
# tell most apart anyway (the H100 VMs' 2000 and 2100 MHz hosts have 105 and 300 MiB of L3).
MHZ_BAND = 0.05
# The suffixes a build from a working tree adds to its version (see the module's docstring).
_LOCAL_BUILD = re.compile(r"(?:[-+.](?:dirty|broken|modified)|\.d\d{8})$")
# A setting that is a number, with an optional unit (`0.5s`, `10x`, `1e-3s`).
_NUMBER = re.compile(r"([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)\s*([a-z]*)")
# The settings whose bare number Google Benchmark reads as seconds.
_SECONDS = ("benchmark_min_time", "benchmark_min_warmup_time")
# What a group's key is made of, in order: the report's columns.
PARTS = ("GPU", "driver", "gpubench", "host CPU", "measured with")


def plain(text: object) -> str:
    """Text without case, spacing or Unicode compatibility forms."""
    return " ".join(unicodedata.normalize("NFKC", str(text)).casefold().split())


def plain_number(value: object) -> float | None:
    """A finite number, from a JSON number or text holding one; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        if isinstance(value, int) and abs(value) > 2 ** 1023:
            return None  # past any float: no count or size a host has
        number = float(value)
    elif isinstance(value, str) and (match := _NUMBER.fullmatch(plain(value))) \
            and not match[2]:
        number = float(match[1])
    else:
        return None
    return number if math.isfinite(number) else None


def number_text(number: float) -> str:
    return str(int(number)) if number.is_integer() and abs(number) < 1e15 else repr(number)


def plain_driver(text: str) -> str:
    return ".".join(part.lstrip("0") or "0" if part.isascii() and part.isdigit() else part
                    for part in plain(text).split("."))


def plain_version(text: str) -> str:
    version = plain(text)
    while (stripped := _LOCAL_BUILD.sub("", version).rstrip()) != version:
        version = stripped
    return version


def plain_setting(key: str, text: str) -> str:
    value = plain(text)
    if (match := _NUMBER.fullmatch(value)) and math.isfinite(float(match[1])):
        unit = match[2] or ("s" if key in _SECONDS else "")
        return number_text(float(match[1])) + unit
    return value


def settings_of(gpu: Gpu) -> tuple[tuple[str, str], ...]:
    """The measurement settings a GPU's result states, each as (key, text). A family's setting
    counts whatever families the GPU ran (gpubench writes saxpy_l2 in every run), so a GPU that
    skipped a family stays with its like and is named for the benchmarks it lacks."""
    return tuple((s.key, text) for s in MEASUREMENT_SETTINGS
                 if (text := setting_text(gpu.context, s)) is not None)


def measured_with(gpu: Gpu) -> str:
    """The settings as the report shows them ("energy off, saxpy_l2 cold, ...")."""
    return ", ".join(f"{key} {one_line(text, SETTING_SHOWN)}" for key, text in settings_of(gpu))


def _caches(context: dict) -> list[tuple[int, str, float | None, float | None]]:
    """(level, kind, size, sharing) of each cache the context describes: kind d, i or '' for
    unified."""
    caches = context.get("caches")
    found = []
    for cache in caches if isinstance(caches, list) else []:
        if not isinstance(cache, dict):
            continue
        kind = {"data": "d", "instruction": "i", "unified": ""}.get(plain(cache.get("type")))
        level = plain_number(cache.get("level"))
        if kind is None or level is None or not level.is_integer():
            continue
        found.append((int(level), kind, plain_number(cache.get("size")),
                      plain_number(cache.get("num_sharing"))))
    return found


def mhz_of(gpu: Gpu) -> float | None:
    mhz = plain_number(gpu.context.get("mhz_per_cpu"))
    return mhz if mhz is not None and mhz > 0 else None


def _size_text(size: float | None) -> str:
    if size is None or size <= 0 or not size.is_integer():
        return "?"
    whole = int(size)
    for unit, shift in (("M", 20), ("K", 10)):
        if whole >= 1 << shift and whole % (1 << shift) == 0:
            return f"{whole >> shift}{unit}"
    return str(whole)


def host_cpu(context: dict, mhz: str | None = None) -> str:
    """The host CPU as Google Benchmark's context describes it (it records no model name): the
    CPU count, the clock it reports (mhz_per_cpu, or `mhz` given) and the cache sizes."""
    parts = []
    cpus = plain_number(context.get("num_cpus"))
    if cpus is not None:
        parts.append(f"{number_text(cpus)} CPUs")
    clock = plain_number(context.get("mhz_per_cpu"))
    if mhz is not None:
        parts.append(mhz)
    elif clock is not None:
        parts.append(f"{clock:g} MHz")
    for level, kind, size, shared in _caches(context):
        sharing = f" shared by {number_text(shared)}" if shared is not None and shared > 1 else ""
        parts.append(f"L{level}{kind} {_size_text(size)}{sharing}")
    return ", ".join(parts) or "unknown CPU"


@dataclass(frozen=True)
class Identity:
    """What GPUs of one group share exactly: the key's parts read as they mean, but for the
    host's clock, which bands() compares within MHZ_BAND."""
    gpu: str
    driver: str
    version: str
    cpus: float | None
    caches: tuple[tuple[int, str, float | None, float | None], ...]
    settings: tuple[tuple[str, str], ...]


def identity_of(gpu: Gpu) -> Identity:
    return Identity(plain(gpu.gpu_name), plain_driver(gpu.result.driver_version),
                    plain_version(str(gpu.context.get("gpubench_version", "unknown"))),
                    plain_number(gpu.context.get("num_cpus")),
                    tuple(sorted(_caches(gpu.context), key=repr)),
                    tuple((key, plain_setting(key, text)) for key, text in settings_of(gpu)))


def bands(gpus: Sequence[Gpu]) -> list[list[Gpu]]:
    """The GPUs in bands of their hosts' clocks: in order of clock, a GPU joins the band of the
    one before it where its clock is within MHZ_BAND of that one's; GPUs whose host states no
    clock are a band of their own."""
    clocked = sorted((g for g in gpus if mhz_of(g) is not None), key=lambda g: mhz_of(g))
    found: list[list[Gpu]] = []
    for gpu in clocked:
        if found and mhz_of(gpu) <= mhz_of(found[-1][-1]) * (1 + MHZ_BAND):
            found[-1].append(gpu)
        else:
            found.append([gpu])
    unclocked = [g for g in gpus if mhz_of(g) is None]
    return found + ([unclocked] if unclocked else [])


def _most_common(texts: list[str]) -> str:
    counts = Counter(texts)
    return min(counts, key=lambda text: (-counts[text], text))


def shown_key(gpus: Sequence[Gpu]) -> tuple[str, str, str, str, str]:
    """A group's key as the report shows it (PARTS): each part as most of its GPUs spell it, the
    host's clock as the band's range."""
    clocks = [mhz for g in gpus if (mhz := mhz_of(g)) is not None]
    low, high = (min(clocks), max(clocks)) if clocks else (None, None)
    mhz = None if low is None else (f"{low:g} MHz" if low == high else f"{low:g}-{high:g} MHz")
    return (_most_common([g.gpu_name for g in gpus]),
            _most_common([g.result.driver_version for g in gpus]),
            _most_common([str(g.context.get("gpubench_version", "unknown")) for g in gpus]),
            _most_common([host_cpu(g.context, mhz) for g in gpus]),
            _most_common([measured_with(g) for g in gpus]))
