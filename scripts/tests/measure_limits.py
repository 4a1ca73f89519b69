#!/usr/bin/env python3
"""Measure the figures README.md's "Limits of the scripts" (and "One page to look at") states.

    scripts/tests/measure_limits.py > results/cpu/script_limits.txt

(minutes on 2 cores, most of it gpubench-tools merge building the files of runs at the limit)

Builds each input in a temporary directory, removed at exit:

- runs at the limit: gpubench-tools merge of copies of a committed recording (each copy gives its
  repetitions as runs, a last part of it the runs still missing), as many runs as fit in the
  loader's MAX_RESULT_BYTES: results/h200/ci_baseline.json (the full suite, 19 runs), and the
  committed recording with the most JSON objects per byte (the densest file of gpubench runs);
- the suite's runs at the limit gzip-compressed, and 1 GiB of zeros gzip-compressed;
- 32 MiB of `{}` (a JSON list of empty objects);
- the worst file within the loader's limits (hostile_inputs.write_worst_result, which
  test_the_worst_file_within_the_limits_is_read_in_stated_memory reads too);
- fleets as fleet_builder.py builds them for test_fleet.py (105 benchmarks a GPU from real H200
  repetitions), with health records and a `done` record per GPU as deploy/slurm writes them.

Each measured command runs in a fresh Python process; its wall time is taken around it, its CPU
time (user + system) and peak resident memory from os.wait4's rusage of that process. The HTML
page is loaded in headless Chromium through Playwright (find_chromium.py), as
test_html_browser.py does; without them that row says why it is missing.
"""

import argparse
import datetime
import gzip
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

TESTS = Path(__file__).resolve().parent
SCRIPTS = TESTS.parent
REPO = SCRIPTS.parent
RESULTS = REPO / "results"
sys.path[:0] = [str(SCRIPTS), str(TESTS)]

import fleet_builder as fb  # noqa: E402
from hostile_inputs import write_worst_result  # noqa: E402

from gpubench_tools.reading.bounded_read import MAX_RESULT_BYTES  # noqa: E402
from gpubench_tools.reading.result_file import MAX_CONTAINERS, MAX_VALUES, json_counts

SUITE_RECORDING = RESULTS / "h200" / "ci_baseline.json"
PAGE_RUNS = [RESULTS / "h200" / "verdicts" / "aa_1.json.gz", RESULTS / "h200" / "verdicts" /
             "aa_2.json.gz", RESULTS / "h200" / "speed" / "suite_after.json"]
FLEET_GPUS = 5000
HEATMAP_GPUS = 256
PAGE_LOADS = 5
LOAD_PROBE = ("import sys; from gpubench_tools.reading.result_file import load; "
              "print(len(load(sys.argv[1]).benchmarks), 'benchmarks')")
PLAIN_JSON_PROBE = "import json, sys; print(len(json.load(open(sys.argv[1]))), 'values')"


@dataclass(frozen=True)
class Usage:
    wall_s: float
    cpu_s: float
    peak_mb: float


def run_measured(args: list[str], expected_codes: tuple[int, ...] = (0,)) -> Usage:
    """Runs `args` in scripts/ as a fresh process; exits with its stderr where its exit status
    is not one of `expected_codes`."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(args, cwd=SCRIPTS, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        if code not in expected_codes:
            err.seek(0)
            sys.exit(f"measure_limits.py: {' '.join(args)} exited {code}: "
                     f"{err.read().decode(errors='replace')[-2000:]}")
    return Usage(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024 / 1e6)


def python(*args: object) -> list[str]:
    return [sys.executable, *map(str, args)]


def loader_counts(path: Path) -> tuple[int, int]:
    """JSON objects and lists, and values, as the loader counts them before parsing."""
    return json_counts(path.read_text(encoding="utf-8"))


def runs_in(path: Path) -> int:
    return json.loads(path.read_text())["context"].get("merged_runs", 1)


def densest_recording() -> Path:
    """The committed recording of merged runs with the most JSON objects and lists per byte."""
    recordings = [p for p in RESULTS.rglob("*.json")
                  if '"merged_runs"' in p.read_text(encoding="utf-8", errors="replace")]
    return max(recordings, key=lambda p: loader_counts(p)[0] / p.stat().st_size)


def first_runs(recording: Path, runs: int, out: Path) -> Path:
    """The first `runs` repetitions of each benchmark of a merged recording, as a recording of
    that many runs (no aggregates; gpubench-tools merge writes them anew)."""
    doc = json.loads(recording.read_text())
    kept, seen = [], {}
    for entry in doc["benchmarks"]:
        if entry.get("run_type", "iteration") == "iteration":
            seen[entry["run_name"]] = seen.get(entry["run_name"], 0) + 1
            if seen[entry["run_name"]] <= runs:
                kept.append(entry)
    doc["benchmarks"] = kept
    doc["context"]["merged_runs"] = runs
    out.write_text(json.dumps(doc, indent=1))
    return out


def merge_runs(recording: Path, runs: int, work: Path, out: Path) -> Path:
    """gpubench-tools merge of copies of `recording` (and a first part of it) into `runs` runs."""
    per_copy = runs_in(recording)
    copies, rest = divmod(runs, per_copy)
    parts = []
    for i in range(copies):
        parts.append(work / f"copy_{i}.json")
        shutil.copyfile(recording, parts[-1])
    if rest:
        parts.append(first_runs(recording, rest, work / "part.json"))
    subprocess.run(python("merge", *parts, "-o", out), cwd=SCRIPTS, check=True,
                   capture_output=True)
    for part in parts:
        part.unlink()
    return out


def runs_at_limit(recording: Path, work: Path, name: str) -> Path:
    """The most runs of `recording` merged whose file still fits in MAX_RESULT_BYTES: sized from
    two merges (the size grows by one run's share per run), then fewer runs until it fits."""
    out = work / name
    small = 2 * runs_in(recording)
    small_bytes = merge_runs(recording, small, work, out).stat().st_size
    large_bytes = merge_runs(recording, 2 * small, work, out).stat().st_size
    per_run = (large_bytes - small_bytes) / small
    runs = small + int((MAX_RESULT_BYTES - small_bytes) / per_run)
    while merge_runs(recording, runs, work, out).stat().st_size > MAX_RESULT_BYTES:
        runs -= 1
    return out


def empty_objects(path: Path) -> Path:
    """A JSON list of `{}` of MAX_RESULT_BYTES."""
    count = (MAX_RESULT_BYTES - 2 + 1) // 3
    path.write_text("[" + ",".join(["{}"] * count) + "]")
    return path


def gzip_bomb(path: Path) -> Path:
    """1 GiB of zeros as 16 gzip members of 64 MiB each: a small file far past the bound once
    unpacked."""
    path.write_bytes(16 * gzip.compress(bytes(64 * 2**20), compresslevel=9))
    return path


def fleet(gpus: int, directory: Path) -> Path:
    """`gpus` GPUs of fleet_builder's noise-only fleet, each with health and `done` records."""
    docs = fb.build_fleet(gpus, 0)
    for doc in docs:
        fb.set_health(doc)
    fb.write_fleet(docs, directory)
    fb.write_done(docs, directory)
    return directory


def megabytes(paths: list[Path]) -> str:
    return f"{sum(p.stat().st_size for p in paths) / 1e6:.1f} MB"


def json_files(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.json"))


def page_load_ms(page: Path) -> list[float] | str:
    """The page's load event in headless Chromium, PAGE_LOADS times, each in a new page; or why
    it cannot be measured."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return "no playwright package"
    from find_chromium import chromium_path
    with sync_playwright() as playwright:
        path = chromium_path(playwright.chromium.executable_path)
        if path is None:
            return "no Chromium"
        browser = playwright.chromium.launch(executable_path=path)
        times = []
        for _ in range(PAGE_LOADS):
            tab = browser.new_page(viewport={"width": 1400, "height": 900})
            tab.goto(page.resolve().as_uri(), wait_until="load", timeout=20_000)
            times.append(tab.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd"))
            tab.close()
        browser.close()
    return times


def header() -> list[str]:
    model = next((line.split(":", 1)[1].strip() for line in
                  Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor())
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short=12", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    return [f"# scripts/tests/measure_limits.py at {commit}, "
            f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
            f"# {os.cpu_count()} CPUs ({model}), Python {platform.python_version()}, "
            f"{platform.system()} {platform.release()}",
            "# each row: one fresh process; wall time, CPU time (user + system) and peak RSS "
            "from os.wait4"]


def row(what: str, size: str, usage: Usage) -> str:
    return f"{what:<58} {size:>22} {usage.wall_s:7.2f} {usage.cpu_s:7.2f} {usage.peak_mb:8.0f}"


def measure(work: Path) -> list[str]:
    suite = runs_at_limit(SUITE_RECORDING, work, "suite_at_limit.json")
    dense_source = densest_recording()
    dense = runs_at_limit(dense_source, work, "dense_at_limit.json")
    suite_copy = work / "suite_at_limit_copy.json"
    shutil.copyfile(suite, suite_copy)
    lines = [f"# suite_at_limit.json: {runs_in(suite)} runs of "
             f"{SUITE_RECORDING.relative_to(REPO)} merged by gpubench-tools merge",
             f"# dense_at_limit.json: {runs_in(dense)} runs of "
             f"{dense_source.relative_to(REPO)} (the committed recording of the most objects "
             "per byte) merged by gpubench-tools merge"]
    for path in (suite, dense):
        containers, values = loader_counts(path)
        lines.append(f"# {path.name}: {path.stat().st_size} bytes, {containers} JSON objects "
                     f"and lists, {values} values (the loader's limits: {MAX_CONTAINERS}, "
                     f"{MAX_VALUES})")
    lines += ["", f"{'what':<58} {'input':>22} {'wall s':>7} {'CPU s':>7} {'peak MB':>8}"]
    for path in (suite, dense):
        lines.append(row(f"result_file.load, {path.name}", megabytes([path]),
                         run_measured(python("-c", LOAD_PROBE, path))))
    packed = work / "suite_at_limit.json.gz"
    packed.write_bytes(gzip.compress(suite.read_bytes(), compresslevel=9))
    lines.append(row(f"result_file.load, {packed.name} (gzip -9)", megabytes([packed]),
                     run_measured(python("-c", LOAD_PROBE, packed))))
    packed.unlink()
    bomb = gzip_bomb(work / "bomb.json.gz")
    lines.append(row("result_file.load, 1 GiB of zeros gzipped (refused)", megabytes([bomb]),
                     run_measured(python("-c", LOAD_PROBE, bomb), (1,))))
    bomb.unlink()
    lines.append(row("gpubench-tools compare, two copies of suite_at_limit.json",
                     megabytes([suite, suite_copy]),
                     run_measured(python("compare", suite, suite_copy), (0, 1))))
    for path in (suite, suite_copy, dense):
        path.unlink()
    braces = empty_objects(work / "empty_objects.json")
    lines.append(row("json.load (no count limit), 32 MiB of {}", megabytes([braces]),
                     run_measured(python("-c", PLAIN_JSON_PROBE, braces))))
    lines.append(row("result_file.load, 32 MiB of {} (refused)", megabytes([braces]),
                     run_measured(python("-c", LOAD_PROBE, braces), (1,))))
    braces.unlink()
    worst = write_worst_result(work / "worst.json")
    lines.append(row("result_file.load, worst file within the limits", megabytes([worst]),
                     run_measured(python("-c", LOAD_PROBE, worst))))
    worst.unlink()
    big = fleet(FLEET_GPUS, work / "fleet")
    lines.append(row(f"gpubench-tools fleet, {FLEET_GPUS} GPUs x 105 benchmarks",
                     megabytes(json_files(big)), run_measured(python("fleet", big), (0, 1))))
    shutil.rmtree(big)
    small = fleet(HEATMAP_GPUS, work / "heatmap_fleet")
    lines.append(row(f"gpubench-tools fleet -o heatmap.png, {HEATMAP_GPUS} GPUs x 105 benchmarks",
                     megabytes(json_files(small)),
                     run_measured(python("fleet", small, "-o", work / "heatmap.png"), (0, 1))))
    page = work / "page.html"
    subprocess.run(python("report", "--format=html", *PAGE_RUNS, "-o", page), cwd=SCRIPTS,
                   check=True, capture_output=True)
    loads = page_load_ms(page)
    lines += ["", f"# gpubench-tools report "
                  f"{' '.join(str(p.relative_to(REPO)) for p in PAGE_RUNS)}: "
              f"{page.stat().st_size / 1e6:.2f} MB page; headless Chromium load event "
              + (f"in {', '.join(f'{ms:.0f}' for ms in loads)} ms ({PAGE_LOADS} loads)"
                 if isinstance(loads, list) else f"not measured: {loads}")]
    return lines


def main(argv: list[str]) -> int:
    # Takes no argument: minutes of measuring are not what a mistyped option should start.
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="measure_limits_") as work:
        lines = header() + measure(Path(work))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    from gpubench_tools.cli import process
    process.install(Path(sys.argv[0]).name)  # stdout and stderr guarded, as the command's are
    sys.exit(main(sys.argv[1:]))
