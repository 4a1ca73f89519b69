"""gpubench-tools fleet from the command line: the report's sections, its exit status, and unusable
input. Fleets of 16 GPUs built from real H200 repetitions (fleet_builder.py)."""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import fleet_builder as fb
import pytest
from conftest import SCRIPTS, RunScript, command

from gpubench_tools.cli.fleet import main, parse_args
from gpubench_tools.reading.fleet.records import status_of_exit
from gpubench_tools.renderers.figures.fleet_heatmap import MAX_HEATMAP_GPUS

LIMITS = SCRIPTS.parent / "results" / "limits" / "h200.json"


def run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def section(out: str, title: str) -> str:
    """The lines of the report's section whose heading starts with `title`."""
    parts = re.split(r"\n== ", out)
    return next(part for part in parts if part.startswith(title))


def rows_with(text: str, word: str) -> list[str]:
    return [line for line in text.splitlines() if word in line]


def test_the_example_fleet_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every section: node16 without a driver (failed), one GPU expected beyond those (missing),
    node09's PCIe replays (health), node05's x4 link (below floor and slower than its group),
    node12-15 on another driver in their own group, named as not screened as the others."""
    fb.write_example(tmp_path)
    code, out, err = run(capsys, tmp_path, "--expect", 18, "--fail-on-outlier")
    assert (code, err) == (1, ""), out
    runs = section(out, "Runs that did not finish")
    assert ": 2 GPU(s)" in runs
    assert rows_with(runs, "missing") and "expected 18 GPUs (--expect), found 17" in runs
    assert rows_with(runs, "node16")[0].split()[:2] == ["failed", "node16"]
    health = section(out, "Health")
    assert rows_with(health, "node09")[0].split()[1:4] == [fb.uuid_of(9), "at", "maintenance"]
    assert "pcie_replay_count grew during the run: 3 -> 1200 in 60.0 s, 1.2e+03/min" in health
    assert "nvlink_crc_errors not reported" in health
    floor = section(out, "Below the floor")
    assert {line.split()[0] for line in rows_with(floor, "copy/")} == {"node05"}
    slower = section(out, "Slower than their group")
    assert {line.split()[0] for line in rows_with(slower, "copy/")} == {"node05"}
    sweeps = {line.split()[2] for line in rows_with(slower, "copy/")}
    assert {"copy/HtoD/pinned/async", "copy/DtoH/pinned/async"} <= sweeps
    assert not any(s.startswith(("copy/DtoD", "copy/HtoH", "launch")) for s in sweeps)
    assert "pcie_link Gen5 x4 (max Gen5 x16)" in slower
    groups = section(out, "Groups")
    assert re.search(r"\n1 +NVIDIA H200 +580\.159\.04 .* 12 +105 +1 +\d+ ", groups), groups
    assert re.search(r"\n2 +NVIDIA H200 +575\.57\.08 .* 4 +105 +0 +\d+ ", groups), groups
    other = section(out, "Not screened as the others")
    assert {line.split()[0] for line in rows_with(other, "575.57.08")} == {
        f"node{i}" for i in range(12, 16)}
    # The answer first, the rule it was reached by last.
    assert out.startswith("gpubench-tools fleet: 8 GPU(s) need attention; ")
    assert "\nHow a GPU was judged. Outliers: " in out
    assert out.rstrip().endswith("8 GPU(s) need attention.")


def test_a_healthy_fleet_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fb.write_fleet(fb.build_fleet(16, 0), tmp_path)
    code, out, _ = run(capsys, tmp_path, "--expect", 16, "--fail-on-outlier")
    assert code == 0, out
    assert out.startswith("gpubench-tools fleet: 0 GPU(s) need attention; 16 GPU result(s)")
    assert out.rstrip().endswith("0 GPU(s) need attention.")


@pytest.mark.parametrize("seed", range(20))
def test_an_interrupted_gpu_is_listed_without_its_err(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str],
                                                      seed: int) -> None:
    """Stopped half way, sick in the half it did not run: its JSON's `interrupted` lists it."""
    fleet = fb.build_fleet(16, seed)
    fb.scale_bandwidth(fleet[7], fb.starts("launch/", "copy/HtoD/pinned/async/1073741824"), 0.5)
    fb.interrupt(fleet[7], kept=50)
    fb.write_fleet(fleet, tmp_path)
    code, out, _ = run(capsys, tmp_path, "--fail-on-outlier")
    assert code == 1, out
    rows = rows_with(section(out, "Runs that did not finish"), "node07")
    assert rows and rows[0].split()[:3] == ["interrupted", "node07", fb.uuid_of(7)]
    assert "stopped by SIGTERM after 50 benchmark(s)" in rows[0]


def test_a_result_that_never_ended_is_killed_without_its_record(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """gpubench SIGKILLed leaves its file valid, run_status `running`: read alone (its record
    not among the inputs) it is a killed run, not a complete result; with deploy/slurm's
    record and .err beside it, one row."""
    fleet = fb.build_fleet(16, 0)
    fb.kill(fleet[3], kept=40)
    alone = fb.write_fleet(fleet, tmp_path / "alone")
    code, out, _ = run(capsys, *alone, "--fail-on-outlier")
    assert code == 1, out
    rows = rows_with(section(out, "Runs that did not finish"), "node03")
    assert len(rows) == 1 and rows[0].split()[:3] == ["killed", "node03", fb.uuid_of(3)]
    assert "the run never ended (killed, or still running) after 40 benchmark(s)" in rows[0]
    fb.write_status(tmp_path / "alone", fb.file_name(fleet[3]), "killed", "none",
                    fb.uuid_of(3))
    (tmp_path / "alone" / f"{fb.file_name(fleet[3])}.err").write_text("")
    code, out, _ = run(capsys, tmp_path / "alone", "--fail-on-outlier")
    assert code == 1, out
    assert len(rows_with(section(out, "Runs that did not finish"), "node03")) == 1


def test_failed_killed_and_interrupted_runs(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """deploy/slurm's .err files: a run with no GPU (failed), one SIGKILLed (137: killed), and an
    interrupted run's .err beside its JSON (one record, not two)."""
    fleet = fb.build_fleet(14, 0)
    fb.interrupt(fleet[2], kept=30)
    fb.write_fleet(fleet, tmp_path)
    fb.write_err(tmp_path, "node20_task20", fb.NO_DRIVER, 1)
    fb.write_err(tmp_path, "node21_device0", "", 137)
    fb.write_err(tmp_path, fb.file_name(fleet[2]),
                 "gpubench: interrupted by SIGTERM; the 30 completed are in x.json", 143)
    code, out, _ = run(capsys, tmp_path, "--fail-on-outlier", "--expect", 16)
    assert code == 1
    runs = section(out, "Runs that did not finish")
    statuses = [line.split()[:2] for line in runs.splitlines()[3:] if line.strip()]
    assert statuses == [["killed", "node21"], ["failed", "node20"], ["interrupted", "node02"]]
    assert "(no message) (exit status 137)" in runs
    interrupted = rows_with(runs, "node02")[0]
    assert "stopped by SIGTERM after 30 benchmark(s)" in interrupted
    assert "(exit status 143)" in interrupted
    assert not rows_with(runs, "--expect")  # 14 results + 2 runs without a UUID: 16


@pytest.mark.parametrize("damage, problem", [
    (lambda text: text[:len(text) // 2], "invalid JSON at line"),
    (lambda text: "core dumped\n", "invalid JSON at line 1"),
    (lambda text: text.replace('"driver_version": "580.159.04"', '"driver_version": 580'),
     "context 'driver_version' is a number, not a string"),
    (lambda text: "", "file is empty"),
], ids=["truncated", "not JSON", "wrong type", "empty"])
def test_a_damaged_file_is_named_and_the_rest_reported(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str],
                                                       damage, problem: str) -> None:
    paths = fb.write_fleet(fb.example_fleet(0), tmp_path)
    paths[3].write_text(damage(paths[3].read_text()))
    code, out, err = run(capsys, tmp_path, "--fail-on-outlier")
    assert code == 1
    assert (len(err.splitlines()) == 1
            and err.startswith(f"gpubench-tools fleet: skipped {paths[3]}: "))
    assert problem in err
    row = rows_with(section(out, "Runs that did not finish"), "damaged")
    assert row and row[0].split()[:3] == ["damaged", "node03", fb.uuid_of(3)]
    assert {line.split()[0] for line in rows_with(section(out, "Slower"), "copy/")} == {"node05"}


def test_a_benchmark_named_with_and_without_its_device_is_damaged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`X` and `X/device:0` of the run's first device are one benchmark: its file is node03's
    damaged row, not one of them dropped for the other by the file's order."""
    paths = fb.write_fleet(fb.example_fleet(0), tmp_path)
    doc = json.loads(paths[3].read_text())
    entry = doc["benchmarks"][0]
    named = entry["name"].replace("/manual_time", "/device:0/manual_time")
    doc["benchmarks"].append({**entry, "name": named, "run_name": named})
    doc["context"]["device_0"] = f"NVIDIA H200, {doc['context']['gpu_uuid']}, 0000:00:06.0"
    paths[3].write_text(json.dumps(doc))
    plain = entry["name"].removesuffix("/manual_time")
    code, out, err = run(capsys, tmp_path, "--fail-on-outlier")
    assert code == 1
    assert err == (f"gpubench-tools fleet: skipped {paths[3]}: {plain} is named both with and "
                   "without /device:0\n")
    row = rows_with(section(out, "Runs that did not finish"), "damaged")
    assert row and row[0].split()[:3] == ["damaged", "node03", fb.uuid_of(3)]


@pytest.mark.parametrize("make, listed, named", [
    (os.mkfifo, "not a regular file: a FIFO", "file is empty"),
    (lambda path: path.symlink_to("/dev/zero"), "not a regular file: a character device",
     "larger than 32 MiB"),
    (lambda path: path.symlink_to(path.with_name("gone.json")),
     "a link to {gone}, which does not exist", "a link to {gone}, which does not exist"),
    (lambda path: path.symlink_to(path), "cannot read (Too many levels of symbolic links)",
     "cannot read (Too many levels of symbolic links)"),
], ids=["FIFO", "device", "dangling link", "link loop"])
def test_an_entry_named_like_a_result_that_no_file_backs_is_damaged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], make, listed: str,
        named: str) -> None:
    """A directory's entry named like node03's result that is no regular file, or a link to none, is
    node03's damaged row with one line on stderr, not an entry passed over; a FIFO or device in a
    directory is not opened, so no writer can hold gpubench-tools fleet. Given by name, the entry is
    read (a FIFO without a writer: empty) and named as it is, not as missing."""
    paths = fb.write_fleet(fb.example_fleet(0), tmp_path)
    paths[3].unlink()
    make(paths[3])
    gone = os.path.realpath(paths[3].with_name("gone.json"))
    listed, named = listed.format(gone=gone), named.format(gone=gone)
    code, out, err = run(capsys, tmp_path, "--fail-on-outlier")
    assert code == 1
    assert err == f"gpubench-tools fleet: skipped {paths[3]}: {listed}\n"
    row = rows_with(section(out, "Runs that did not finish"), "damaged")
    assert row and row[0].split()[:3] == ["damaged", "node03", fb.uuid_of(3)], out
    assert listed in row[0]
    code, _, err = run(capsys, paths[3])
    assert code == 0 and err.startswith(f"gpubench-tools fleet: skipped {paths[3]}: {named}"), err


def test_expected_hosts_and_gpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fb.write_fleet(fb.build_fleet(8, 0), tmp_path / "fleet")
    expected = tmp_path / "hosts.txt"
    expected.write_text("# the fleet\nnode00\nnode01 2   # two GPUs\n" +
                        "".join(f"node{i:02d}\n" for i in range(2, 8)) +
                        "node08\nnode09 4\nGPU-0000dead-f1ee-4000-8000-000000000000\n")
    code, out, _ = run(capsys, tmp_path / "fleet", "--expect-hosts", expected, "--expect", 20,
                       "--fail-on-outlier")
    assert code == 1
    runs = section(out, "Runs that did not finish")
    assert ": 12 GPU(s)" in runs  # node01: 1, node08: 1, node09: 4, the UUID: 1, 5 more
    assert "1 of 2 GPUs found" in rows_with(runs, "node01")[0]
    assert "nothing from this host (4 GPUs)" in rows_with(runs, "node09")[0]
    assert rows_with(runs, "GPU-0000dead")
    assert "expected 20 GPUs (--expect), found 8 (5 GPUs)" in runs


def test_hosts_not_expected_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fb.write_fleet(fb.build_fleet(5, 0), tmp_path / "fleet")
    (tmp_path / "hosts.txt").write_text("node00\nnode01\nnode02\nnode03\n")
    code, out, _ = run(capsys, tmp_path / "fleet", "--expect-hosts", tmp_path / "hosts.txt")
    assert code == 0
    assert "hosts with results that the expected hosts do not list" in out and "node04" in out


def test_pod_log_and_failed_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A collected pod log (deploy/container/gpubench-pod) beside deploy/slurm's files: a status
    line takes the UUID of the JSON line of its node and device."""
    fleet = fb.example_fleet(0)
    fb.write_fleet(fleet[:8], tmp_path / "slurm")
    fb.interrupt(fleet[9], kept=40)
    lines = [json.dumps(doc) for doc in fleet[8:]]
    lines += [fb.NO_DRIVER, "gpubench-pod: node99 device 0: exit status 1",
              "gpubench: interrupted by SIGTERM", "gpubench-pod: node09 device 0: exit status 143",
              '{"context": ']
    (tmp_path / "k8s").mkdir()
    (tmp_path / "k8s" / "nodes.jsonl").write_text("\n".join(lines) + "\n")
    fb.write_err(tmp_path / "slurm", "node98_task3", fb.NO_DRIVER, 1)
    code, out, err = run(capsys, tmp_path / "slurm", tmp_path / "k8s")
    assert code == 0, out
    assert "16 GPU result(s), 2 group(s)" in out
    runs = section(out, "Runs that did not finish")
    assert "node98_task3.err" in rows_with(runs, "node98")[0]
    assert "nodes.jsonl:10 (node99 device 0)" in rows_with(runs, "node99")[0]
    node09 = rows_with(runs, "node09")
    assert len(node09) == 1 and node09[0].split()[:3] == ["interrupted", "node09", fb.uuid_of(9)]
    assert "exit status 143" in node09[0]
    assert (err.startswith("gpubench-tools fleet: skipped ")
            and "nodes.jsonl:13: invalid JSON" in err)


@pytest.mark.parametrize(("status", "verdict"), [
    (129, "interrupted"), (130, "interrupted"), (143, "interrupted"), (137, "killed"),
    (1, "failed"), (2, "failed"), (131, "failed"), (139, "failed"), (None, "failed")])
def test_an_exit_status_is_the_run_s_status(status: int | None, verdict: str) -> None:
    """gpubench's own exit on SIGHUP, SIGINT and SIGTERM (its JSON marked interrupted), SIGKILL,
    and the rest (a failed check, a bad flag, a crash on SIGQUIT or SIGSEGV, no status)."""
    assert status_of_exit(status) == verdict


def test_several_devices_in_one_file_are_several_gpus(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A --device=0,1 run names its benchmarks .../device:N and each device in device_N: device 1
    of node05 at a quarter of the bandwidth is named by its own UUID. A benchmark of no one
    device (a peer copy) belongs to the first."""
    fleet = fb.build_fleet(16, 0)
    node05 = fleet[5]
    slow = json.loads(json.dumps(node05))
    fb.plant_narrow_link(slow)
    entries = []
    for device, doc in ((0, node05), (1, slow)):
        for entry in doc["benchmarks"]:
            name = entry["run_name"].replace("/manual_time", f"/device:{device}/manual_time")
            entries.append(dict(entry, name=name, run_name=name))
    node05["benchmarks"] = entries + [dict(node05["benchmarks"][0], name="peer/ce/read/0to1/4096",
                                           run_name="peer/ce/read/0to1/4096")]
    other = "GPU-11111111-f1ee-4000-8000-000000000000"
    node05["context"].update(device_0=f"NVIDIA H200, {fb.uuid_of(5)}, 0000:05:00.0",
                             device_1=f"NVIDIA H200, {other}, 0000:06:00.0")
    fb.write_fleet(fleet, tmp_path)
    code, out, _ = run(capsys, tmp_path)
    assert "17 GPU result(s)" in out
    assert {tuple(line.split()[:2]) for line in rows_with(section(out, "Slower"), "copy/")} == \
        {("node05", other)}


def test_heatmap_is_drawn_and_text_from_files_is_not_mathtext(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A `$` in a host name would start matplotlib mathtext, and `$\\frac$` would not parse: the
    heatmap is written only where renderers/figures/setup.py has turned mathtext off."""
    fleet = fb.example_fleet(0)
    fleet[5]["context"]["host_name"] = "node$\\frac$05"
    fb.write_fleet(fleet, tmp_path / "fleet")
    code, out, err = run(capsys, tmp_path / "fleet", "-o", tmp_path / "heatmap.png")
    assert (code, err) == (0, ""), err
    assert (tmp_path / "heatmap.png").read_bytes().startswith(b"\x89PNG")


def test_a_heatmap_of_more_gpus_than_it_holds_is_refused_before_the_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fb.write_fleet(fb.build_fleet(MAX_HEATMAP_GPUS + 1, 0), tmp_path / "fleet")
    code, out, err = run(capsys, tmp_path / "fleet", "-o", tmp_path / "heatmap.png")
    assert (code, out) == (2, "")
    assert err == (f"gpubench-tools fleet: -o {tmp_path / 'heatmap.png'}: "
                   f"{MAX_HEATMAP_GPUS + 1} GPUs to "
                   f"draw, more than the {MAX_HEATMAP_GPUS} a heatmap holds (leave out -o for "
                   "the report, or give a part of the fleet)\n")
    assert not (tmp_path / "heatmap.png").exists()
    code, out, err = run(capsys, tmp_path / "fleet")
    assert (code, err) == (0, "") and f"{MAX_HEATMAP_GPUS + 1} GPU result(s)" in out


def failed_entry(name: str, message: str) -> dict:
    """A benchmark as Google Benchmark writes one that called SkipWithError."""
    return {"name": name, "run_name": name, "run_type": "iteration", "error_occurred": True,
            "error_message": message, "iterations": 0, "real_time": 0, "cpu_time": 0,
            "time_unit": "us"}


@pytest.mark.parametrize("written_as", ["files", "pod log"])
def test_a_failed_benchmark_fails_its_gpu_and_a_skipped_one_does_not(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], written_as: str) -> None:
    """node03's result holds a benchmark that failed (its message holding an escape sequence and
    a newline, repeated in a second repetition), with no record beside it; node04's, sizes
    gpubench skipped (gpubench's `skipped: ` messages). node03 alone is failed, its benchmark
    and message named, the message escaped."""
    fleet = fb.build_fleet(16, 0)
    name = "copy/HtoD/pinned/async/4096"
    message = ("CUDA error: an illegal memory access was encountered\x1b[2J\n"
               "(CUDA_ERROR_ILLEGAL_ADDRESS)")
    fleet[3]["benchmarks"] += [failed_entry(name, message), failed_entry(name, "again")]
    fleet[4]["benchmarks"] += [
        failed_entry("copy/HtoD/pinned/async/1099511627776",
                     "skipped: 1 TiB does not fit in device memory"),
        failed_entry("saxpy/driver/268435456",
                     "skipped: the GPU faulted in an earlier benchmark: "
                     "CUDA_ERROR_ILLEGAL_ADDRESS")]
    if written_as == "files":
        fb.write_fleet(fleet, tmp_path)
    else:
        (tmp_path / "pods.jsonl").write_text("".join(json.dumps(doc) + "\n" for doc in fleet))
    code, out, err = run(capsys, tmp_path, "--fail-on-outlier")
    assert (code, err) == (1, ""), out
    runs = section(out, "Runs that did not finish")
    rows = [line for line in runs.splitlines()[3:] if line.strip()]
    assert len(rows) == 1 and rows[0].split()[:3] == ["failed", "node03", fb.uuid_of(3)], runs
    assert (f"benchmark failed: {name}: CUDA error: an illegal memory access was encountered"
            "\\x1b[2J (CUDA_ERROR_ILLEGAL_ADDRESS)") in rows[0]
    assert "\x1b" not in out
    assert out.rstrip().endswith("1 GPU(s) need attention.")


def test_a_failed_benchmark_of_a_device_names_that_device(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A --device=0,1 run whose device 1 failed every benchmark: device 1 is failed, by its
    UUID, device 0 not."""
    fleet = fb.build_fleet(4, 0)
    other = "GPU-11111111-f1ee-4000-8000-000000000000"
    fleet[0]["context"].update(device_0=f"NVIDIA H200, {fb.uuid_of(0)}, 0000:05:00.0",
                               device_1=f"NVIDIA H200, {other}, 0000:06:00.0")
    fleet[0]["benchmarks"] += [failed_entry("saxpy/driver/device:1/1024", "verification failed")]
    fb.write_fleet(fleet, tmp_path)
    code, out, _ = run(capsys, tmp_path, "--fail-on-outlier")
    assert code == 1
    rows = rows_with(section(out, "Runs that did not finish"), "failed")
    assert len(rows) == 1 and rows[0].split()[:3] == ["failed", "node00", other]
    assert "saxpy/driver/device:1/1024: verification failed" in rows[0]


def with_permissions() -> list[str]:
    """A command prefix under which file permissions hold: root ignores them, unless it runs
    without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root without setpriv: file permissions do not hold")
    dropped = "-dac_override,-dac_read_search"
    return [setpriv, f"--inh-caps={dropped}", f"--bounding-set={dropped}"]


@pytest.mark.parametrize("case", ["directory", "directory's files", "heatmap", "limits",
                                  "expected hosts"])
def test_a_path_that_cannot_be_read_or_written_is_named(tmp_path: Path, case: str) -> None:
    """Every path gpubench-tools fleet reads or writes names itself when the system refuses it: a
    directory it may not list (mode 000), one whose files it may not examine (mode r--), the
    heatmap, limits or expected hosts inside a directory it may not enter."""
    good = tmp_path / "good"
    fb.write_fleet(fb.build_fleet(4, 0), good)
    closed = tmp_path / "closed"
    fb.write_fleet(fb.build_fleet(4, 0), closed)
    closed.chmod(0o444 if case == "directory's files" else 0)
    args, named = {
        "directory": ([closed], closed),
        "directory's files": ([closed], closed / "node"),  # whichever it examines first
        "heatmap": ([good, "-o", closed / "h.png"], closed / "h.png"),
        "limits": ([good, "--limits", closed / "l.json"], closed / "l.json"),
        "expected hosts": ([good, "--expect-hosts", closed / "hosts.txt"], closed / "hosts.txt"),
    }[case]
    try:
        done = subprocess.run([*with_permissions(), *command("fleet"),
                               *map(str, args)], capture_output=True, text=True, timeout=60)
    finally:
        closed.chmod(0o755)
    assert done.returncode == 2, done.stderr
    assert re.match(rf"gpubench-tools fleet: (--[a-z-]+ )?{re.escape(str(named))}[^:/]*: ",
                    done.stderr), done.stderr
    assert "Permission denied" in done.stderr and "stdout" not in done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr


def unusable_cases(tmp_path: Path) -> dict[str, tuple[list[str], str]]:
    fleet = fb.build_fleet(4, 0)
    fb.write_fleet(fleet, tmp_path / "good")
    fb.write_fleet(fleet[:2], tmp_path / "few")
    (tmp_path / "empty").mkdir()
    (tmp_path / "limits.json").write_text('{"gpu_name": "NVIDIA H200", "floors": {"x": {}}}')
    (tmp_path / "badre.json").write_text('{"gpu_name": "NVIDIA H200", "floors": {"x": '
                                         '{"floor_gb_per_s": 1, "requires": {"a": "("}}}}')
    (tmp_path / "huge.json").write_text('{"gpu_name": "NVIDIA H200", "floors": {"x": '
                                        '{"floor_gb_per_s": 1%s}}}' % ("0" * 399))
    (tmp_path / "hosts.txt").write_text("node01 two\n")
    (tmp_path / "superscript.txt").write_text("node01 \u00b2\n")
    (tmp_path / "digits.txt").write_text(f"node01 {'9' * 5000}\n")
    (tmp_path / "twice.txt").write_text("node99 2\nnode00\nnode99 1\n")
    (tmp_path / "uuid_twice.txt").write_text(f"{fb.uuid_of(1)}\n{fb.uuid_of(1)}\n")
    good_dir = str(tmp_path / "good")
    return {
        "missing": ([str(tmp_path / "nowhere")], "no such file or directory"),
        "nothing to read": ([str(tmp_path / "empty")],
                            "no gpubench result, .status, .err or pod log"),
        "bad --k": ([good_dir, "--k=nan"], "--k"),
        "bad --host-margin": ([good_dir, "--host-margin=-1"], "--host-margin"),
        "--margin of 100%": ([good_dir, "--margin=100"], "--margin=100.0: must be a percent "
                             "from 0 to below 100"),
        "--host-margin over 100%": ([good_dir, "--host-margin=250"], "--host-margin=250.0"),
        "--margin of nan": ([good_dir, "--margin=nan"], "--margin=nan"),
        "--k past any noise": ([good_dir, "--k=1e308"], "--k=1e+308: must be a number from 0 "
                               "to 100"),
        "--host-k over 100": ([good_dir, "--host-k=101"], "--host-k=101.0"),
        "bad --corroborate": ([good_dir, "--corroborate=0"], "--corroborate"),
        "bad --expect": ([good_dir, "--expect=0"], "--expect"),
        "--corroborate past any sweep": ([good_dir, "--corroborate=131073"],
                                         "--corroborate=131073: must be a whole number from 1 "
                                         "to 131072"),
        "--min-gpus past any fleet": ([good_dir, "--min-gpus=1000001"],
                                      "--min-gpus=1000001: must be a whole number from 3"),
        "--expect past any fleet": ([good_dir, f"--expect={10**30}"],
                                    f"--expect=1{'0' * 22}…: must be a whole number from 1 "
                                    "to 1000000 ("),
        "--expect of 4000 digits": ([good_dir, f"--expect={10**4000}"],
                                    "from 1 to 1000000 (a million GPUs would take "
                                    "gpubench-tools fleet"),
        "bad --headline": ([good_dir, "--headline=("], "--headline"),
        "limits without a floor": ([good_dir, "--limits", str(tmp_path / "limits.json")],
                                   "no 'floor_gb_per_s' > 0"),
        "limits with a bad expression": ([good_dir, "--limits", str(tmp_path / "badre.json")],
                                         "bad expression"),
        "limits with a floor beyond a float": (
            [good_dir, "--limits", str(tmp_path / "huge.json")],
            "huge.json: not a limits file (the floor of 'x': 'floor_gb_per_s' is an integer of "
            "400 digits, more than a float holds)"),
        "limits not there": ([good_dir, "--limits", str(tmp_path / "nolimits.json")],
                             "cannot read"),
        "bad expected hosts": ([good_dir, "--expect-hosts", str(tmp_path / "hosts.txt")],
                               "hosts.txt:1"),
        "expected hosts with other digits": (
            [good_dir, "--expect-hosts", str(tmp_path / "superscript.txt")], "superscript.txt:1"),
        "expected hosts with 5000 digits": (
            [good_dir, "--expect-hosts", str(tmp_path / "digits.txt")], "digits.txt:1"),
        "expected host twice": ([good_dir, "--expect-hosts", str(tmp_path / "twice.txt")],
                                "twice.txt:3: host 'node99' is listed twice"),
        "expected GPU twice": ([good_dir, "--expect-hosts", str(tmp_path / "uuid_twice.txt")],
                               f"uuid_twice.txt:2: GPU {fb.uuid_of(1)} is listed twice"),
        "heatmap into a directory": ([good_dir, "-o", str(tmp_path)], "directory"),
        "heatmap into a missing directory": (
            [good_dir, "-o", str(tmp_path / "no" / "h.png")], "cannot write"),
        "heatmap of no group": ([str(tmp_path / "few"), "-o", str(tmp_path / "h.png")],
                                "no group to draw"),
        "heatmap of no column": ([good_dir, "-o", str(tmp_path / "h.png"),
                                  "--headline=^no/such/benchmark"],
                                 "no heatmap column: --headline selects none of the "),
    }


@pytest.mark.parametrize("case", [
    "missing", "nothing to read", "bad --k", "bad --host-margin",
    "--margin of 100%", "--host-margin over 100%", "--margin of nan", "--k past any noise",
    "--host-k over 100", "bad --corroborate", "--corroborate past any sweep",
    "--min-gpus past any fleet", "bad --expect", "--expect past any fleet",
    "--expect of 4000 digits", "bad --headline", "limits without a floor",
    "limits with a bad expression", "limits with a floor beyond a float", "limits not there",
    "bad expected hosts", "expected hosts with other digits", "expected hosts with 5000 digits",
    "expected host twice", "expected GPU twice",
    "heatmap into a directory", "heatmap into a missing directory", "heatmap of no group",
    "heatmap of no column"])
def test_unusable_input_is_one_line_and_exit_2(tmp_path: Path, run_script: RunScript,
                                               case: str) -> None:
    args, expected = unusable_cases(tmp_path)[case]
    done = run_script("fleet", *args)
    assert done.returncode == 2, done.stderr
    assert expected in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_k_of_100_is_accepted() -> None:
    """The bound on --k and --host-k is 100 itself: such a k still flags a loss over a figure of
    low noise (a peer copy's is near 0.01%)."""
    args = parse_args(["fleet", "--k=100", "--host-k=100"])
    assert (args.rule.k, args.rule.host_k) == (100, 100)


def test_the_bounds_of_the_counts_are_accepted(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """--corroborate, --min-gpus and --expect take their bounds themselves; --expect at its
    bound is one `missing` row counting the GPUs short, not a row each."""
    args = parse_args(["fleet", "--corroborate=131072", "--min-gpus=1000000"])
    assert (args.rule.corroborate, args.rule.min_gpus) == (131072, 1000000)
    fb.write_fleet(fb.build_fleet(4, 0), tmp_path)
    code, out, err = run(capsys, tmp_path, "--expect=1000000")
    assert (code, err) == (0, ""), out
    runs = section(out, "Runs that did not finish")
    assert ": 999996 GPU(s)" in runs
    rows = rows_with(runs, "missing  ")
    assert len(rows) == 1 and rows[0].endswith("found 4 (999996 GPUs)  --expect"), runs


def test_a_group_too_small_is_listed_not_an_error(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    fb.write_fleet(fb.build_fleet(3, 0), tmp_path)
    code, out, _ = run(capsys, tmp_path, "--fail-on-outlier")
    assert code == 0, out
    assert "too few to compare (--min-gpus=4): floors only" in section(out, "Groups")


def test_groups_measured_otherwise_show_their_settings(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """The groups' table names the settings where they tell groups apart, and only there."""
    fleet = fb.build_fleet(8, 0)
    fb.write_fleet(fleet, tmp_path)
    _, out, _ = run(capsys, tmp_path)
    assert "measured with" not in section(out, "Groups")
    for doc in fleet[4:]:
        doc["context"]["benchmark_min_time"] = "0.5s"
    fb.write_fleet(fleet, tmp_path)
    code, out, err = run(capsys, tmp_path, "--fail-on-outlier")
    assert (code, err) == (0, ""), out
    groups = section(out, "Groups")
    assert "measured with" in groups and "benchmark_min_time 0.5s" in groups, groups
    assert len(rows_with(groups, "NVIDIA H200")) == 2, groups


def test_a_slow_gpu_timed_with_its_clocks_held_down_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """node05 is slower than its group; where gpubench saw its clocks held down during a
    benchmark (clock_limited_ms > 0), what to look at names that, and not where it did not."""
    paths = fb.write_example(tmp_path)
    node05 = next(p for p in paths if p.name.startswith("node05") and p.suffix == ".json")
    _, out, _ = run(capsys, tmp_path, "--expect", 18)
    assert "clocks held down" not in section(out, "Slower than their group")
    doc = json.loads(node05.read_text())
    held = next(b for b in doc["benchmarks"] if b["name"].startswith("copy/"))
    held["clock_limited_ms"] = 40.0
    node05.write_text(json.dumps(doc))
    _, out, _ = run(capsys, tmp_path, "--expect", 18)
    slower = section(out, "Slower than their group")
    assert "1 benchmark(s) timed with the clocks held down" in rows_with(slower, "node05")[-1]


def test_a_slow_gpu_shows_the_sm_clock_its_kernels_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """node05 is slower than its group; where gpubench wrote the SM clock its kernels read
    (sm_clock_kernel_mhz), what to look at shows its range, a condition beside the figures."""
    paths = fb.write_example(tmp_path)
    node05 = next(p for p in paths if p.name.startswith("node05") and p.suffix == ".json")
    _, out, _ = run(capsys, tmp_path, "--expect", 18)
    assert "read by its kernels" not in section(out, "Slower than their group")
    doc = json.loads(node05.read_text())
    for benchmark, mhz in zip(doc["benchmarks"], (1410.0, 1980.0)):
        benchmark["sm_clock_kernel_mhz"] = mhz
    node05.write_text(json.dumps(doc))
    _, out, _ = run(capsys, tmp_path, "--expect", 18)
    slower = section(out, "Slower than their group")
    assert "SM clock read by its kernels 1410 to 1980 MHz" in rows_with(slower, "node05")[-1]
