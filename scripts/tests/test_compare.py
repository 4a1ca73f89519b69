import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import H200, RunScript
from gbench_builder import (copy_run, document, launch_run, load_json, module_run, saxpy_run,
                            scaled, with_repetitions, write_json)

import compare as cmp

SIZE = 1 << 20
COPY = f"copy/HtoD/pinned/async/{SIZE}"
LAUNCH = "launch/runtime/submit/params:0"
COLUMNS = {name: i for i, name in enumerate(cmp.TABLE_HEADERS)}
LAUNCH_INTERLEAVED = H200 / "stability" / "launch_submit_interleaved_10rep.json"
COPY_INTERLEAVED = H200 / "stability" / "copy_64m_256m_interleaved_10rep.json"


def suite(gbps: Any = 50.0, us: Any = 2.0, **kw: Any) -> list[dict]:
    return copy_run("HtoD", "pinned", "async", SIZE, gbps, **kw) + launch_run(
        "runtime", "submit", 0, us, **kw)


def compare(tmp_path: Path, run_script: RunScript, base: list[dict], cont: list[dict],
            *args: object, cont_context: dict | None = None):
    b = write_json(tmp_path / "base.json", document(base))
    c = write_json(tmp_path / "cont.json", document(cont, **(cont_context or {})))
    return run_script("compare.py", b, c, "--markdown", *args)


def rows(markdown: str) -> dict[str, dict[str, str]]:
    """Benchmark table rows of compare.py's markdown, by benchmark name, by column."""
    found = {}
    for line in markdown.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == len(COLUMNS) and "/" in cells[0]:
            found[cells[0]] = dict(zip(cmp.TABLE_HEADERS, cells))
    return found


def row(markdown: str, name: str) -> dict[str, str]:
    return rows(markdown)[name]


def test_identical_inputs_pass(tmp_path: Path, run_script: RunScript) -> None:
    proc = compare(tmp_path, run_script, suite(), suite())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    copy = row(proc.stdout, COPY)
    assert (copy["change %"], copy["NEW vs BASE"], copy["verdict"]) == ("+0.00", "1.00×", "SAME")
    assert "Regression check: same GPU, driver and CUDA" in proc.stdout
    assert "OK: 0 of 2 benchmark(s) regressed" in proc.stdout


@pytest.mark.parametrize(("contender", "name", "ratio"), [
    (suite(gbps=40.0), COPY, "1.25× slower"),  # bandwidth dropped 20%
    (suite(us=2.4), LAUNCH, "1.20× slower"),  # launch time rose 20%
])
def test_flags_planted_regression(tmp_path: Path, run_script: RunScript, contender: list[dict],
                                  name: str, ratio: str) -> None:
    proc = compare(tmp_path, run_script, suite(), contender)
    assert proc.returncode == 1
    changed = row(proc.stdout, name)
    assert (changed["change %"], changed["NEW vs BASE"], changed["verdict"]) == \
        ("-20.00", ratio, "SLOWER")
    assert "FAIL: 1 of 2 benchmark(s) regressed" in proc.stdout


def test_improvements_are_faster_and_pass(tmp_path: Path, run_script: RunScript) -> None:
    proc = compare(tmp_path, run_script, suite(), suite(gbps=60.0, us=1.6))
    assert proc.returncode == 0
    copy, launch = row(proc.stdout, COPY), row(proc.stdout, LAUNCH)
    assert (copy["change %"], copy["NEW vs BASE"], copy["verdict"]) == \
        ("+20.00", "1.20× faster", "FASTER")
    assert (launch["NEW vs BASE"], launch["verdict"]) == ("1.25× faster", "FASTER")


@pytest.mark.parametrize(("threshold", "status", "verdict"), [(5, 0, "SAME"), (2, 1, "SLOWER")])
def test_threshold(tmp_path: Path, run_script: RunScript, threshold: float, status: int,
                   verdict: str) -> None:
    proc = compare(tmp_path, run_script, suite(), suite(gbps=50.0 * 0.97),
                   f"--threshold={threshold}")
    assert proc.returncode == status
    assert row(proc.stdout, COPY)["verdict"] == verdict


def test_significant_regression_with_repetitions(tmp_path: Path, run_script: RunScript) -> None:
    base = [10.0, 10.1, 9.9, 10.05, 9.95]
    proc = compare(tmp_path, run_script, suite(gbps=base), suite(gbps=[0.8 * g for g in base]))
    assert proc.returncode == 1
    copy = row(proc.stdout, COPY)
    assert float(copy["p"]) == pytest.approx(2 / 252, rel=1e-3)  # fully separated, 5 and 5
    assert copy["repetitions"] == "5 / 5" and copy["verdict"] == "SLOWER"


def test_noise_shown_per_side(tmp_path: Path, run_script: RunScript) -> None:
    base, new = [10.0, 12.0, 8.0, 11.0, 9.0], [10.0, 10.1, 9.9, 10.0, 10.0]
    proc = compare(tmp_path, run_script, suite(gbps=base), suite(gbps=new))
    copy = row(proc.stdout, COPY)
    for column, values in (("CV % BASE", base), ("CV % NEW", new)):
        expected = 100 * np.std(values, ddof=1) / np.mean(values)
        assert float(copy[column]) == pytest.approx(expected, abs=0.005)


def test_noisy_change_is_not_significant(tmp_path: Path, run_script: RunScript) -> None:
    proc = compare(tmp_path, run_script, suite(gbps=[10.0, 12.0, 8.0, 11.0, 9.0]),
                   suite(gbps=[8.5, 12.0, 7.0, 11.0, 8.0]))
    assert proc.returncode == 0, proc.stdout
    copy = row(proc.stdout, COPY)
    assert copy["change %"] == "-15.00" and float(copy["p"]) > 0.05 and copy["verdict"] == "SAME"


def test_too_few_repetitions_noted(tmp_path: Path, run_script: RunScript) -> None:
    proc = compare(tmp_path, run_script, suite(gbps=[10.0, 10.1]), suite(gbps=[5.0, 5.1]))
    assert proc.returncode == 0
    assert "too few repetitions" in proc.stdout


def test_aggregates_only_rests_on_the_threshold(tmp_path: Path, run_script: RunScript) -> None:
    reps = [50.0, 50.5, 49.5]
    proc = compare(tmp_path, run_script, suite(gbps=reps, aggregates_only=True),
                   suite(gbps=[0.5 * g for g in reps], aggregates_only=True))
    assert proc.returncode == 1
    copy = row(proc.stdout, COPY)
    assert copy["p"] == "-" and copy["verdict"] == "SLOWER"
    # The cv aggregate is the noise that is left.
    assert float(copy["CV % BASE"]) == pytest.approx(100 * np.std(reps, ddof=1) / 50.0, abs=0.005)
    assert "--benchmark_report_aggregates_only=true" in proc.stdout
    assert proc.stdout.count("rests on the threshold alone") == 2


def test_single_runs_rest_on_the_threshold(tmp_path: Path, run_script: RunScript) -> None:
    proc = compare(tmp_path, run_script, suite(), suite(gbps=[49.0, 50.0, 51.0]))
    assert proc.returncode == 0
    assert "BASE (" in proc.stdout and "one run per benchmark" in proc.stdout
    assert "rests on the threshold alone" in proc.stdout
    assert row(proc.stdout, COPY)["repetitions"] == "1 / 3"


def test_different_gpu_is_a_report(tmp_path: Path, run_script: RunScript) -> None:
    proc = compare(tmp_path, run_script, suite(), suite(gbps=25.0, us=2.5),
                   cont_context={"gpu_name": "NVIDIA H100", "pcie_link": "Gen3 x8"})
    assert proc.returncode == 0, proc.stdout
    assert "Comparison report, not a regression check (gpu_name differ)" in proc.stdout
    assert row(proc.stdout, COPY)["NEW vs BASE"] == "2.00× slower"
    assert "| gpu_name | NVIDIA H200 | NVIDIA H100 |" in proc.stdout
    assert "| pcie_link | (absent) | Gen3 x8 |" in proc.stdout
    assert "REPORT: 2 benchmark(s) compared: 0 FASTER, 2 SLOWER, 0 SAME." in proc.stdout


@pytest.mark.parametrize("key", ["driver_version", "cuda_runtime_version"])
def test_driver_or_cuda_change_is_a_report(tmp_path: Path, run_script: RunScript,
                                           key: str) -> None:
    proc = compare(tmp_path, run_script, suite(), suite(gbps=25.0), cont_context={key: "9.9"})
    assert proc.returncode == 0
    assert f"({key} differ)" in proc.stdout


def test_report_option_on_the_same_gpu(tmp_path: Path, run_script: RunScript) -> None:
    proc = compare(tmp_path, run_script, suite(), suite(gbps=25.0), "--report")
    assert proc.returncode == 0
    assert "(--report)" in proc.stdout and row(proc.stdout, COPY)["verdict"] == "SLOWER"


def test_context_identical(tmp_path: Path, run_script: RunScript) -> None:
    assert "The contexts are identical." in compare(tmp_path, run_script, suite(), suite()).stdout


def test_rows_sorted_by_family_variant_and_size(tmp_path: Path, run_script: RunScript) -> None:
    entries = []
    for size in (4, 1 << 30, 1024, 16, 65536):
        entries += copy_run("DtoH", "pinned", "async", size, 10.0)
        entries += copy_run("HtoD", "pinned", "async", size, 10.0)
    for n in (1 << 20, 1024, 1 << 16):
        entries += saxpy_run("vec4", n, 100.0, peak_gbps=4000.0)
    for params in (4096, 0, 256, 8):
        entries += launch_run("driver", "submit", params, 2.0)
    entries += module_run("ptx_jit", 900.0) + module_run("cubin_load", 15.0)
    random.Random(0).shuffle(entries)  # as --benchmark_enable_random_interleaving leaves them
    proc = compare(tmp_path, run_script, entries, entries)
    names = list(rows(proc.stdout))
    sizes = ["4", "16", "1024", "65536", str(1 << 30)]
    assert names == ([f"copy/DtoH/pinned/async/{s}" for s in sizes]
                     + [f"copy/HtoD/pinned/async/{s}" for s in sizes]
                     + [f"launch/driver/submit/params:{p}" for p in (0, 8, 256, 4096)]
                     + ["launch/module/cubin_load", "launch/module/ptx_jit"]
                     + [f"saxpy/vec4/{n}" for n in (1024, 1 << 16, 1 << 20)])


def test_natural_key() -> None:
    names = ["saxpy/vec4/1048576", "copy/HtoD/pinned/async/65536", "launch/g/submit/params:256",
             "copy/HtoD/pinned/async/4096", "launch/g/submit/params:32764", "copy/DtoH/x/y/8"]
    assert sorted(names, key=cmp.natural_key) == [
        "copy/DtoH/x/y/8", "copy/HtoD/pinned/async/4096", "copy/HtoD/pinned/async/65536",
        "launch/g/submit/params:256", "launch/g/submit/params:32764", "saxpy/vec4/1048576"]


def test_geometric_mean_per_family(tmp_path: Path, run_script: RunScript) -> None:
    base = (copy_run("HtoD", "pinned", "async", 4096, 10.0)
            + copy_run("HtoD", "pinned", "async", 8192, 10.0)
            + launch_run("driver", "submit", 0, 2.0) + launch_run("graph", "submit", 0, 1.0))
    new = (copy_run("HtoD", "pinned", "async", 4096, 20.0)  # 2× faster
           + copy_run("HtoD", "pinned", "async", 8192, 5.0)  # 2× slower
           + launch_run("driver", "submit", 0, 2.4) + launch_run("graph", "submit", 0, 1.2))
    proc = compare(tmp_path, run_script, base, new, "--report")
    summary = {line.split("|")[1].strip(): [c.strip() for c in line.strip("|").split("|")]
               for line in proc.stdout.split("### Summary per family")[1].splitlines()
               if line.startswith("| ") and not line.startswith("| family")}
    assert summary["copy"] == ["copy", "2", "1.00×", "1", "1", "0"]
    assert summary["launch"] == ["launch", "2", "1.20× slower", "0", "2", "0"]


def test_only_changed(tmp_path: Path, run_script: RunScript) -> None:
    proc = compare(tmp_path, run_script, suite(), suite(gbps=40.0), "--only-changed")
    assert list(rows(proc.stdout)) == [COPY]
    assert "launch: 1 compared, 0 changed" in proc.stdout
    assert "1 of 2 benchmark(s) regressed" in proc.stdout


def test_benchmarks_in_one_file_are_named_by_family(tmp_path: Path,
                                                    run_script: RunScript) -> None:
    extra = copy_run("DtoH", "pinned", "sync", 4096, 5.0) + module_run("ptx_jit", 900.0)
    sax = saxpy_run("vec4", 1024, 100.0, peak_gbps=4000.0)
    proc = compare(tmp_path, run_script, suite() + extra, suite() + sax)
    section = proc.stdout.split("### Benchmarks in one file only")[1]
    assert "Only in BASE (2), not compared:" in section
    assert "- copy (1): copy/DtoH/pinned/sync/4096" in section
    assert "- launch (1): launch/module/ptx_jit" in section
    assert "Only in NEW (1), not compared:" in section
    assert "- saxpy (1): all 1 (the other file has no saxpy benchmarks)" in section


def test_plain_text_table(tmp_path: Path, run_script: RunScript) -> None:
    b = write_json(tmp_path / "b.json", document(suite()))
    proc = run_script("compare.py", b, b)
    assert proc.returncode == 0
    line = next(line for line in proc.stdout.splitlines() if line.startswith(COPY))
    assert line.split()[1:4] == ["50", "50", "GB/s"] and line.split()[-1] == "SAME"
    assert "|" not in proc.stdout


# Real data: the H200's committed results.

def halves(tmp_path: Path, source: Path, aggregates_only: bool = False) -> tuple[Path, Path]:
    """An A/A pair: one run's repetitions 0-4 against its repetitions 5-9."""
    doc = load_json(source)
    first = with_repetitions(doc, lambda i: i < 5, aggregates_only)
    second = with_repetitions(doc, lambda i: i >= 5, aggregates_only)
    return (write_json(tmp_path / "first.json", first),
            write_json(tmp_path / "second.json", second))


@pytest.mark.parametrize("source", [LAUNCH_INTERLEAVED, COPY_INTERLEAVED])
def test_a_a_split_flags_nothing_with_the_u_test(tmp_path: Path, run_script: RunScript,
                                                 source: Path) -> None:
    first, second = halves(tmp_path, source)
    proc = run_script("compare.py", first, second, "--markdown")
    assert proc.returncode == 0, proc.stdout
    found = rows(proc.stdout)
    assert len(found) == len(load_json(source)["benchmarks"]) // 14  # 10 iterations + 4 aggregates
    assert {r["verdict"] for r in found.values()} == {"SAME"}
    assert {r["repetitions"] for r in found.values()} == {"5 / 5"}


def test_a_a_split_without_repetitions_cries_wolf(tmp_path: Path, run_script: RunScript) -> None:
    """The same halves written with aggregates only: the threshold alone flags launches whose
    host-timed figures move by more than 5% from one half to the other."""
    first, second = halves(tmp_path, LAUNCH_INTERLEAVED, aggregates_only=True)
    proc = run_script("compare.py", first, second, "--markdown")
    verdicts = [r["verdict"] for r in rows(proc.stdout).values()]
    assert proc.returncode == 1 and verdicts.count("SAME") < len(verdicts)
    assert "rests on the threshold alone" in proc.stdout


def test_planted_regression_in_real_data(tmp_path: Path, run_script: RunScript) -> None:
    doc = load_json(COPY_INTERLEAVED)
    run = "copy/HtoD/pinned/async/268435456/manual_time"
    base = write_json(tmp_path / "base.json", doc)
    slower = write_json(tmp_path / "slower.json", scaled(doc, run, 1.10))
    proc = run_script("compare.py", base, slower, "--markdown")
    assert proc.returncode == 1, proc.stdout
    changed = {name: r for name, r in rows(proc.stdout).items() if r["verdict"] != "SAME"}
    assert list(changed) == ["copy/HtoD/pinned/async/268435456"]
    assert changed["copy/HtoD/pinned/async/268435456"]["NEW vs BASE"] == "1.10× slower"
    assert float(changed["copy/HtoD/pinned/async/268435456"]["p"]) < 0.05
    assert "FAIL: 1 of 50 benchmark(s) regressed" in proc.stdout


def test_other_gpu_against_the_h200(tmp_path: Path, run_script: RunScript) -> None:
    doc = load_json(H200 / "gpubench.json")
    other = json.loads(json.dumps(doc))
    other["context"].update(gpu_name="NVIDIA A100-SXM4-80GB", driver_version="550.54.15",
                            cuda_runtime_version="12.4", pcie_link="Gen4 x16 (max Gen4 x16)")
    for entry in other["benchmarks"]:  # every figure half as good
        if entry.get("aggregate_name", "median") in ("mean", "median"):
            for key in ("real_time", "cpu_time", "us_per_launch", "us_per_copy"):
                if key in entry:
                    entry[key] *= 2
            if "bytes_per_second" in entry:
                entry["bytes_per_second"] /= 2
    proc = run_script("compare.py", H200 / "gpubench.json",
                      write_json(tmp_path / "a100.json", other), "--markdown")
    assert proc.returncode == 0, proc.stderr
    assert "Comparison report, not a regression check" in proc.stdout
    for key, h200, a100 in (("gpu_name", "NVIDIA H200", "NVIDIA A100-SXM4-80GB"),
                            ("driver_version", "580.159.04", "550.54.15"),
                            ("cuda_runtime_version", "13.0", "12.4"),
                            ("pcie_link", "Gen5 x16 (max Gen5 x16)", "Gen4 x16 (max Gen4 x16)")):
        assert f"| {key} | {h200} | {a100} |" in proc.stdout
    names = {entry["run_name"] for entry in doc["benchmarks"]}
    copies = sum(name.startswith("copy/") for name in names)
    found = rows(proc.stdout)
    assert len(found) == len(names)
    assert {r["NEW vs BASE"] for r in found.values()} == {"2.00× slower"}
    assert f"| copy | {copies} | 2.00× slower | 0 | {copies} | 0 |" in proc.stdout
