"""The floors of a limits file: per device-timed bandwidth figure of one GPU model, the lowest
single measurement less a tolerance, with the conditions it was measured under (cli/limits.py
says what the command writes and why)."""

import math
import os
import re
from pathlib import Path

import numpy as np

from gpubench_tools.reading.bounded_read import special_file
from gpubench_tools.reading.facts import GBPS, FamilyFacts
from gpubench_tools.reading.fleet.records import split_devices
from gpubench_tools.reading.result_file import RESULT_SUFFIXES, load
from gpubench_tools.reading.results import Benchmark
from gpubench_tools.writing.outputs import repeated_file

MIB = 1 << 20
_PAIR = re.compile(r"/(\d+)to(\d+)/")
_LINK_COUNT = re.compile(r"x\d+")


def pcie_max(link: str) -> str | None:
    """The link's best, X of a pcie_link ending in "(max X)" ("Gen5 x16 (max Gen5 x16)"), found
    from the first "(max " without a regular expression's search, which tries every start of
    a text of many "(max " again to its end."""
    start = link.find("(max ")
    if start < 0 or not link.endswith(")"):
        return None
    best = link[start + len("(max "):-1]
    return best if best and "\n" not in best else None


# The smallest argument a floor starts at, by the argument's unit.
SMALLEST = {"bytes": MIB, "elements": MIB}


def literal(text: str) -> str:
    """A regular expression matching `text` (spaces left as they are, for a readable file)."""
    return re.escape(text).replace("\\ ", " ")


def requirement(name: str, context: dict) -> dict[str, str]:
    """The context a floor of benchmark `name`, measured in `context`, applies to."""
    family, path = name.split("/")[0], name.split("/")[1]
    if family == "copy" and path in ("HtoD", "DtoH", "bidir"):
        link = pcie_max(str(context.get("pcie_link", "")))
        return {"pcie_link": rf"\(max {literal(link)}\)$"} if link else {}
    if family == "saxpy" and "saxpy_l2" in context:
        return {"saxpy_l2": f"^{literal(str(context['saxpy_l2']))}$"}
    if family == "peer" and (pair := _PAIR.search(name)):
        key = f"peer_{pair[1]}to{pair[2]}"
        text = str(context.get(key, ""))
        link = text[text.find("NVLink"):] if "NVLink" in text else text
        # Any link count: fewer links than measured is what a floor should catch.
        return {key: _LINK_COUNT.sub("x[0-9]+", literal(link))} if link else {}
    return {}


def has_floor(bench: Benchmark, facts: FamilyFacts) -> bool:
    argument = bench.parts.argument
    return argument is not None and facts.argument is not None and bench.metric == GBPS \
        and argument >= SMALLEST[facts.argument.unit] and "all_devices" not in bench.name


def collect(paths: list[Path], gpu_name: str | None) -> tuple[str, dict, dict[str, str]]:
    """Per benchmark, its GB/s measurements and requirement; the files read and their versions."""
    measured: dict[str, dict] = {}
    sources: dict[str, str] = {}
    model = gpu_name
    results = [load(path) for path in paths]
    # By the names of each device's benchmarks, as they are judged below.
    host_paced = {name for path, result in zip(paths, results)
                  for gpu in split_devices(str(path), result)
                  for name, bench in gpu.benchmarks.items() if bench.host_paced}
    for path, result in zip(paths, results):
        if model is None:
            model = result.gpu_name
        if result.gpu_name != model:
            raise ValueError(f"{path}: a {result.gpu_name}, not a {model} (one model per file)")
        sources[str(path)] = str(result.context.get("gpubench_version"))
        families = result.families
        for gpu in split_devices(str(path), result):
            for name, bench in gpu.benchmarks.items():
                if name in host_paced or not has_floor(bench, families[bench.family]):
                    continue
                values = bench.repetition_values(GBPS)
                if not values.size:
                    continue
                entry = measured.setdefault(name, {"values": [], "requires": None})
                entry["values"] += values.tolist()
                needs = requirement(name, gpu.context)
                if entry["requires"] not in (None, needs):
                    raise ValueError(f"{path}: {name} measured under {needs}, elsewhere under "
                                     f"{entry['requires']}")
                entry["requires"] = needs
    if model is None:
        raise ValueError("no result given")
    return model, measured, sources


def rounded(gb_per_s: float) -> float:
    """A figure to 3 decimals, or 4 significant digits where those hold fewer: a measurement may be
    down to 1e-39 GB/s (reading/json_values.py's range), and one rounded to 0 is a floor
    gpubench-tools fleet refuses, as no floor."""
    return round(gb_per_s, max(3, 3 - math.floor(math.log10(gb_per_s))))


def limits_document(model: str, measured: dict, sources: dict[str, str], tolerance: float,
                    command: str) -> dict:
    floors = {}
    for name in sorted(measured):
        values = np.array(measured[name]["values"])
        lowest = float(values.min())
        floors[name] = {
            "floor_gb_per_s": rounded(lowest * (1 - tolerance / 100)),
            "lowest_gb_per_s": rounded(lowest),
            "median_gb_per_s": rounded(float(np.median(values))),
            "measurements": int(values.size),
            "requires": measured[name]["requires"],
        }
    return {
        "gpu_name": model,
        "how_built": (f"Written by `{command}` from the files in `sources` (their gpubench "
                      f"versions beside them). Each floor is {100 - tolerance:g}% of the lowest "
                      f"single measurement of the benchmark in those files (lowest_gb_per_s; "
                      f"every repetition of every run, `measurements` of them); the "
                      f"{tolerance:g}% below it is room for GPUs and hosts we did not measure. "
                      f"Device-timed bandwidth only: copies and peer copies from 1 MiB, saxpy "
                      f"from 2^20 elements. gpubench-tools fleet applies a floor where the GPU's "
                      f"context matches every expression in its `requires`."),
        "tolerance_pct": tolerance,
        "sources": sources,
        "floors": floors,
    }


def folder_results(folder: Path) -> list[Path]:
    """The result files of `folder` (RESULT_SUFFIXES). ValueError for a folder that holds
    none or cannot be listed, and for one of them that is no regular file (named as it is and
    not opened: a FIFO's writer could hold the command, a device holds no result)."""
    try:
        with os.scandir(folder) as entries:
            found = sorted(Path(e.path) for e in entries if e.name.endswith(RESULT_SUFFIXES))
    except OSError as error:
        raise ValueError(f"{folder}: cannot list the folder ({error.strerror or error})") from None
    if not found:
        names = ", ".join("*" + suffix for suffix in RESULT_SUFFIXES)
        raise ValueError(f"{folder}: no result file ({names}) in the folder")
    for path in found:
        if problem := special_file(path):
            raise ValueError(f"{path}: {problem}")
    return found


def result_files(inputs: list[str]) -> list[Path]:
    files = []
    for name in inputs:
        path = Path(name)
        if path.is_dir():
            files += folder_results(path)
        elif path.exists() or path.is_symlink():  # the loader names what it cannot read
            files.append(path)
        else:
            raise ValueError(f"{path}: no such file or directory")
    # One file counted twice (given twice, or given and in a folder given) would count one run
    # as two measurements of each floor.
    if repeated := repeated_file(files):
        raise ValueError(f"{repeated[0]}: the same file as {repeated[1]}, given before")
    return files
