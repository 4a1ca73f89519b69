"""The floors of a limits file: per device-timed bandwidth figure of one GPU model, the lowest
single measurement less a tolerance, with the conditions it was measured under; and per benchmark,
the largest loss a healthy process showed against its card's median (cli/limits.py says what the
command writes and why)."""

import math
import os
import re
from collections.abc import Collection
from pathlib import Path

import numpy as np

from gpubench_tools.reading.bounded_read import special_file
from gpubench_tools.reading.facts import GBPS, FamilyFacts, Metric
from gpubench_tools.reading.fleet.records import split_devices
from gpubench_tools.reading.result_file import RESULT_SUFFIXES, load
from gpubench_tools.reading.results import Benchmark
from gpubench_tools.writing.outputs import repeated_file

MIB = 1 << 20
# A card's processes of one benchmark give it a median to measure their losses against only where
# there are this many: with fewer, the median is one of few draws and the losses about it small.
MIN_PROCESSES = 5
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


# (GPU UUID, gpubench version): one card under one build, whose separate processes are compared.
Card = tuple[str, str]
# Per card, per benchmark: its metric and its figure in each process, by (file, process in it).
Processes = dict[Card, dict[str, tuple[Metric, dict[tuple[str, int], float]]]]


def process_values(bench: Benchmark, separate_runs: int) -> list[float]:
    """One figure per separate process a file holds of the benchmark: each repetition of a file
    merged from separate runs of one repetition each (`gpubench-tools merge`: merged_runs), or
    the value of a file of one process; none where repetitions cannot be told apart by run."""
    if separate_runs == 1:
        return [bench.value()]
    values = bench.repetition_values()
    return values.tolist() if values.size == separate_runs else []


def add_processes(processes: Processes, card: Card, source: str, name: str, bench: Benchmark,
                  separate_runs: int) -> None:
    metric, runs = processes.setdefault(card, {}).setdefault(name, (bench.metric, {}))
    if metric == bench.metric:
        for index, value in enumerate(process_values(bench, separate_runs)):
            if np.isfinite(value) and value > 0:
                runs[(source, index)] = value


def median_losses(speeds: np.ndarray) -> dict[str, float]:
    """Per number K of processes from 2 to half the card's, the largest loss (in percent) the
    median of K of its processes shows: the median of its K slowest. A GPU judged by the median
    of K separate processes (gpubench-tools fleet --processes-per-gpu) lands on a level that
    far below its card at worst; K up to half the card's processes, so that the K slowest are
    the slower half's and their median lies below the card's."""
    slowest = np.sort(speeds)
    return {str(k): round(100 * float(1 - np.median(slowest[:k])), 2)
            for k in range(2, speeds.size // 2 + 1)}


def process_losses(processes: Processes, host_paced: Collection[str] = ()) -> dict:
    """Per benchmark, the largest loss (1 - speed, speed the figure over the card's median, the
    inverse for times) of any separate process of a card that ran it in MIN_PROCESSES processes
    or more: the level a whole process lands on, which costs a healthy GPU that much; and, per
    number of processes K, the largest loss of the median of K of a card's processes
    (median_losses; `median_loss_pct`, over the cards with 2K processes or more), but for the
    `host_paced` benchmarks: their figures fall in states of the host that several processes
    share (one H200 card's graph submits ran at 0.56-0.58 of its median in 4 of its 19
    processes, the next card's in 1 of 25), so a median of K narrows them less than other
    cards' processes promise, and fleet judges them by a single process's loss whatever K."""
    found: dict[str, dict] = {}
    for benchmarks in processes.values():
        for name, (metric, runs) in benchmarks.items():
            if len(runs) < MIN_PROCESSES:
                continue
            values = np.array(list(runs.values()))
            median = float(np.median(values))
            speeds = values / median if metric.bigger_is_better else median / values
            entry = found.setdefault(name, {"loss_pct": 0.0, "processes": 0, "cards": 0,
                                            "median_loss_pct": {}})
            entry["loss_pct"] = max(entry["loss_pct"], round(100 * float(1 - speeds.min()), 2))
            entry["processes"] += int(values.size)
            entry["cards"] += 1
            of_median = entry["median_loss_pct"]
            for k, loss in ({} if name in host_paced else median_losses(speeds)).items():
                of_median[k] = max(of_median.get(k, 0.0), loss)
    for entry in found.values():
        entry["median_loss_pct"] = dict(sorted(entry["median_loss_pct"].items(),
                                               key=lambda item: int(item[0])))
    return dict(sorted(found.items()))


def collect(paths: list[Path], gpu_name: str | None
            ) -> tuple[str, dict, dict[str, str], dict, set[str]]:
    """Per benchmark, its GB/s measurements and requirement; the files read and their versions;
    per card, each benchmark's figure in each separate process (process_losses); the names of
    the benchmarks a file says the host paces."""
    measured: dict[str, dict] = {}
    processes: Processes = {}
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
            card = (gpu.uuid, str(result.context.get("gpubench_version")))
            for name, bench in gpu.benchmarks.items():
                add_processes(processes, card, str(path), name, bench, result.separate_runs)
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
    return model, measured, sources, processes, host_paced


def rounded(gb_per_s: float) -> float:
    """A figure to 3 decimals, or 4 significant digits where those hold fewer: a measurement may be
    down to 1e-39 GB/s (reading/json_values.py's range), and one rounded to 0 is a floor
    gpubench-tools fleet refuses, as no floor."""
    return round(gb_per_s, max(3, 3 - math.floor(math.log10(gb_per_s))))


# A floor sits below the median by the slowest healthy process's loss, squared, as the fleet's
# process headroom does (models/fleet/outliers.py, Rule.process_headroom): a card not measured
# lands on a process level as low again.
FLOOR_HEADROOM = 2.0


def limits_document(model: str, measured: dict, sources: dict[str, str], tolerance: float,
                    command: str, processes: dict | None = None,
                    host_paced: Collection[str] = ()) -> dict:
    losses = process_losses(processes or {}, host_paced)
    floors = {}
    for name in sorted(measured):
        values = np.array(measured[name]["values"])
        lowest = float(values.min())
        healthy = 1 - losses.get(name, {}).get("loss_pct", 0.0) / 100
        base = min(lowest, float(np.median(values)) * healthy ** FLOOR_HEADROOM)
        floors[name] = {
            "floor_gb_per_s": rounded(base * (1 - tolerance / 100)),
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
                      f"every repetition of every run, `measurements` of them), or of its "
                      f"median times (1 - its process loss) to the power {FLOOR_HEADROOM:g} "
                      f"where that is lower; the "
                      f"{tolerance:g}% below it is room for GPUs and hosts we did not measure. "
                      f"Device-timed bandwidth only: copies and peer copies from 1 MiB, saxpy "
                      f"from 2^20 elements. gpubench-tools fleet applies a floor where the GPU's "
                      f"context matches every expression in its `requires`. Each "
                      f"`process_losses` entry is the largest loss (1 - speed against the card's "
                      f"median) of any separate process of a card that ran the benchmark in "
                      f"{MIN_PROCESSES} processes or more (a file's repetitions where it was "
                      f"merged from separate runs, else the file), over `cards` cards: "
                      f"gpubench-tools fleet flags a GPU on a sweep only where, at half its sizes "
                      f"or more, its speed is below (1 - loss_pct / 100) to the power "
                      f"--process-headroom. Its `median_loss_pct` gives, per number K of "
                      f"processes, the largest loss of the median of K processes of a card (the "
                      f"median of its K slowest) over the cards that ran it in 2K processes or "
                      f"more: what fleet --processes-per-gpu K judges by in place of loss_pct "
                      f"(none for a host-paced figure, judged by loss_pct whatever K)."),
        "tolerance_pct": tolerance,
        "sources": sources,
        "floors": floors,
        "process_losses": losses,
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
