import json
from pathlib import Path

import numpy as np
from conftest import RunScript
from family_facts import with_facts
from gbench_builder import copy_run, document, launch_run, run_entries, saxpy_run, write_json

BIG = 256 << 20


def test_steady_results_pass_and_noisy_ones_fail(tmp_path: Path, run_script: RunScript) -> None:
    steady = (copy_run("HtoD", "pinned", "async", BIG, [55.0, 55.1, 54.9, 55.0])
              + saxpy_run("vec4", 1 << 28, [4100, 4101, 4099, 4100], 4270.0))
    ok = run_script("stability", write_json(tmp_path / "ok.json", document(steady)))
    assert ok.returncode == 0, ok.stderr
    assert "0 of 2 benchmarks over their limit" in ok.stdout

    noisy = steady + copy_run("DtoH", "pinned", "async", BIG, [55.0, 50.0, 56.0, 52.0])
    bad = run_script("stability", write_json(tmp_path / "bad.json", document(noisy)))
    assert bad.returncode == 1
    line = next(l for l in bad.stdout.splitlines() if l.startswith("copy/DtoH"))
    assert line.split()[-1] == "OVER"


def test_host_timed_figures_have_no_limit(tmp_path: Path, run_script: RunScript) -> None:
    """A host-timed figure moves with the host: its CV is shown, never judged."""
    host, gpu = {"host_timed": 1, "noise_pct": 9.0}, {"host_timed": 0, "noise_pct": 0.1}
    runs = (copy_run("HtoD", "pageable", "sync", BIG, [6.0, 7.0, 5.5, 6.5], counters=host)
            + launch_run("driver", "submit", 0, [3.0, 3.6, 3.1, 3.9], counters=host)
            + copy_run("HtoD", "pinned", "async", BIG, [55.0, 50.0, 56.0, 52.0], counters=gpu))
    out = run_script("stability", write_json(tmp_path / "h.json", document(runs)))
    lines = {l.split()[0]: l.split() for l in out.stdout.splitlines() if "/" in l.split()[0]}
    pageable = lines[f"copy/HtoD/pageable/sync/{BIG}"]
    assert pageable[1:2] + pageable[-2:] == ["host", "-", "-"]
    assert lines["launch/driver/submit/params:0"][-1] == "-"
    assert lines[f"copy/HtoD/pinned/async/{BIG}"][1] == "GPU"
    assert lines[f"copy/HtoD/pinned/async/{BIG}"][-1] == "OVER"
    assert out.returncode == 1 and "1 of 3 benchmarks over their limit" in out.stdout


def test_aggregates_only_files_use_the_cv_aggregate(tmp_path: Path,
                                                    run_script: RunScript) -> None:
    runs = (copy_run("DtoH", "pinned", "async", BIG, [55.0, 55.1, 54.9], aggregates_only=True)
            + copy_run("HtoD", "pinned", "async", BIG, [50.0, 55.1, 54.9], aggregates_only=True))
    out = run_script("stability", write_json(tmp_path / "agg.json", document(runs)))
    assert out.returncode == 1, out.stderr
    rows = {l.split()[0]: l.split() for l in out.stdout.splitlines() if "/" in l.split()[0]}
    copy = rows["copy/DtoH/pinned/async/268435456"]
    assert copy[1:3] == ["-", "3"] and copy[-1] == "ok"
    assert abs(float(copy[3]) - 100 * float(np.std([55.0, 55.1, 54.9], ddof=1) / 55.0)) < 1e-3
    assert rows["copy/HtoD/pinned/async/268435456"][-1] == "OVER"


def test_small_sizes_have_no_limit(tmp_path: Path, run_script: RunScript) -> None:
    noisy_small = copy_run("HtoD", "pinned", "async", 4096, [1.0, 2.0, 3.0])
    out = run_script("stability", write_json(tmp_path / "s.json", document(noisy_small)))
    assert out.returncode == 0
    assert out.stdout.splitlines()[3].split()[-1] == "-"


def test_without_repetitions_is_bad_input(tmp_path: Path, run_script: RunScript) -> None:
    single = copy_run("HtoD", "pinned", "async", BIG, 55.0)
    out = run_script("stability", write_json(tmp_path / "one.json", document(single)))
    assert out.returncode == 2
    assert out.stderr.startswith("gpubench-tools stability: ")


def test_missing_file_is_bad_input(tmp_path: Path, run_script: RunScript) -> None:
    out = run_script("stability", tmp_path / "nope.json")
    assert out.returncode == 2
    assert "no such file" in out.stderr


def test_the_limit_follows_the_argument_unit_of_the_facts(tmp_path: Path,
                                                          run_script: RunScript) -> None:
    """saxpy at 2^24 elements: held to 1% where the facts say elements; read as 2^24 bytes, under
    64 MiB, in a file without facts."""
    noisy = saxpy_run("vec4", 1 << 24, [4100, 3900, 4300, 3800], 4270.0)
    for doc, verdict in ((with_facts(document(noisy)), "OVER"), (document(noisy), "-")):
        out = run_script("stability", write_json(tmp_path / "x.json", doc))
        line = next(l for l in out.stdout.splitlines() if l.startswith("saxpy/"))
        assert line.split()[-1] == verdict, out.stdout


def test_a_negative_cv_aggregate_is_refused(tmp_path: Path, run_script: RunScript) -> None:
    """A cv of -50% is below any limit: it would read "ok"."""
    runs = copy_run("DtoH", "pinned", "async", BIG, [45.0, 50.0, 55.0], aggregates_only=True)
    next(e for e in runs if e["aggregate_name"] == "cv")["bytes_per_second"] = -0.5
    out = run_script("stability", write_json(tmp_path / "cv.json", document(runs)))
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("gpubench-tools stability: ") and out.stderr.count("\n") == 1
    assert "cv of 'bytes_per_second' is -0.5" in out.stderr


def test_a_negative_or_zero_mean_is_judged_by_the_spread(tmp_path: Path,
                                                        run_script: RunScript) -> None:
    """A family's own counter may be negative: its CV is negative (-91% for these) and is
    judged by its size, not read as below 1%; a mean of 0 has no relative spread to judge."""
    facts = {"schema": 1, "families": [{
        "name": "skew", "order": 1, "grammar": "skew/<case>/<bytes>",
        "argument": {"key": "", "unit": "bytes"},
        "figures": [{"counter": "skew_us", "unit": "µs", "scale": 1, "better": "lower"}]}]}
    runs = []
    for case, values in (("noisy", [-10.0, -5.0, -20.0, -1.0]), ("steady", [-10.0, -10.01]),
                         ("zero", [0.0, 0.0, 0.0])):
        runs += run_entries(f"skew/{case}/{BIG}/manual_time",
                            [{"real_time": 1.0, "skew_us": v} for v in values])
    doc = document(runs, gpubench_families=json.dumps(facts))
    out = run_script("stability", write_json(tmp_path / "neg.json", doc))
    rows = {l.split()[0]: l.split() for l in out.stdout.splitlines() if "/" in l.split()[0]}
    assert rows[f"skew/noisy/{BIG}"][3:] == ["-91.174", "1", "OVER"], out.stdout
    assert rows[f"skew/steady/{BIG}"][-1] == "ok"
    assert rows[f"skew/zero/{BIG}"][3:] == ["-", "1", "-"]
    assert out.returncode == 1 and "1 of 3 benchmarks over their limit" in out.stdout
