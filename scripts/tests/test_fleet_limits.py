"""The committed limits file is what gpubench-tools limits builds from our H200 measurements, and
its floors are judged as gpubench-tools fleet's docs say."""

import json
import os
import shlex
import subprocess
import time
from pathlib import Path

import fleet_builder as fb
import pytest
from forked_command import run_tool
from conftest import H200, RunScript, command
from fleet_noise import verdict

from gpubench_tools.cli.limits import main as limits_main
from gpubench_tools.models import limits as make_limits
from gpubench_tools.models.fleet import limits as fleet_limits
from gpubench_tools.models.fleet.limits import DEFAULT_DIRECTORY, load_limits
from gpubench_tools.reading.fleet.records import FleetInputError

REPOSITORY = H200.parents[1]
COMMITTED = DEFAULT_DIRECTORY / "h200.json"


def test_the_committed_file_is_rebuilt_from_its_sources(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    committed = json.loads(COMMITTED.read_text())
    command = committed["how_built"].split("`")[1]
    argv = shlex.split(command)[2:]  # after `scripts/gpubench-tools limits`
    output = argv.index("-o") + 1
    assert argv[output] == "results/limits/h200.json"
    argv[output] = str(tmp_path / "h200.json")
    monkeypatch.chdir(REPOSITORY)
    assert limits_main(argv) == 0
    rebuilt = json.loads((tmp_path / "h200.json").read_text())
    rebuilt["how_built"] = rebuilt["how_built"].replace(str(tmp_path / "h200.json"),
                                                        "results/limits/h200.json")
    assert rebuilt == committed


def test_every_floor_is_below_every_measurement_it_was_built_from() -> None:
    committed = json.loads(COMMITTED.read_text())
    assert committed["gpu_name"] == "NVIDIA H200" and committed["tolerance_pct"] == 10
    losses = committed["process_losses"]
    lowered = 0
    for name, floor in committed["floors"].items():
        # 90% of the lowest measurement, or of the median times the slowest healthy process's
        # speed squared where that is lower (models/limits.py: FLOOR_HEADROOM)
        healthy = 1 - losses.get(name, {}).get("loss_pct", 0) / 100
        base = min(floor["lowest_gb_per_s"], floor["median_gb_per_s"] * healthy ** 2)
        assert floor["floor_gb_per_s"] == pytest.approx(0.9 * base, rel=1e-3), name
        assert floor["floor_gb_per_s"] <= 0.9 * floor["lowest_gb_per_s"] + 1e-3, name
        assert floor["lowest_gb_per_s"] <= floor["median_gb_per_s"], name
        lowered += base < floor["lowest_gb_per_s"]
    assert lowered > 0  # some process of the four cards lost more than the lowest shows
    names = set(committed["floors"])
    assert not any(n.startswith("launch/") or "/sync/" in n or "/pageable/" in n for n in names)
    assert {"copy/HtoD/pinned/async/67108864", "saxpy/driver/268435456",
            "peer/ce/write/0to1/1073741824"} <= names
    assert "copy/HtoD/pinned/async/4096" not in names  # smaller than 1 MiB: latency


def test_the_committed_limits_load() -> None:
    limits = load_limits(COMMITTED)
    floor = limits.floors["copy/HtoD/pinned/async/1073741824"]
    assert floor.applies({"pcie_link": "Gen5 x4 (max Gen5 x16)"})
    assert not floor.applies({"pcie_link": "Gen4 x16 (max Gen4 x16)"})
    assert not floor.applies({})


def test_a_floor_needs_its_sweep_corroborated() -> None:
    """One size of a sweep below its floor is one bad repetition; two are a GPU."""
    fleet = fb.build_fleet(16, 0)
    fb.scale_bandwidth(fleet[3], fb.starts("copy/HtoD/pinned/async/1073741824"), 0.5)
    assert verdict(fleet).below_floor == set()
    fb.scale_bandwidth(fleet[3], fb.starts("copy/HtoD/pinned/async/268435456"), 0.5)
    assert verdict(fleet).below_floor == {"node03"}


def test_a_run_over_several_devices_gives_the_floors_of_one_device(tmp_path: Path) -> None:
    """The suite as a --device=0,1 run writes it (.../device:N names, device_N in the context):
    the same floors per device as the one-device file gives, host-paced copies (pageable) none."""
    single = H200 / "gpubench.json"
    doc = json.loads(single.read_text())
    uuid = doc["context"]["gpu_uuid"]
    entries = []
    for device in (0, 1):
        for entry in doc["benchmarks"]:
            named = {key: entry[key].replace("/manual_time", f"/device:{device}/manual_time")
                     for key in ("name", "run_name") if key in entry}
            entries.append({**entry, **named})
    doc["benchmarks"] = entries
    doc["context"].update(device_0=f"NVIDIA H200, {uuid}, 0000:00:06.0",
                          device_1="NVIDIA H200, GPU-11111111-f1ee-4000-8000-000000000000, "
                                   "0000:00:07.0")
    several = tmp_path / "several.json"
    several.write_text(json.dumps(doc))
    floors = {}
    for source in (single, several):
        out = tmp_path / f"{source.stem}_limits.json"
        assert limits_main(["-o", str(out), str(source)]) == 0
        floors[source.stem] = set(load_limits(out).floors)
    assert floors["several"] == floors["gpubench"]
    assert not any("/pageable/" in name for name in floors["several"])


def clashing_names(tmp_path: Path, device_first: bool) -> Path:
    """A file naming copy/DtoD/.../1073741824 both bare and with /device:0 (device 0 the run's
    first device), the /device:0 entries at half the bandwidth, listed first or last."""
    doc = json.loads((H200 / "stability" / "copy_1g_interleaved_10rep.json").read_text())
    bare = "copy/DtoD/device/async/1073741824/manual_time"
    named = bare.replace("/manual_time", "/device:0/manual_time")
    on_device = [{**entry, "name": named, "run_name": named,
                  "bytes_per_second": entry["bytes_per_second"] / 2}
                 for entry in doc["benchmarks"] if entry["name"] == bare]
    assert on_device
    doc["benchmarks"] = (on_device + doc["benchmarks"] if device_first
                         else doc["benchmarks"] + on_device)
    doc["context"]["device_0"] = f"NVIDIA H200, {doc['context']['gpu_uuid']}, 0000:00:06.0"
    path = tmp_path / f"clash_{device_first}.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("device_first", [True, False])
def test_make_limits_refuses_a_benchmark_named_with_and_without_its_device(
        tmp_path: Path, run_script: RunScript, device_first: bool) -> None:
    """Both names are one benchmark of device 0: one would replace the other, whichever the file
    lists later, and the floor would follow the file's order."""
    source = clashing_names(tmp_path, device_first)
    done = run_script("limits", "-o", str(tmp_path / "l.json"), str(source))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"gpubench-tools limits: {source}: copy/DtoD/device/async/1073741824 is "
                           "named both with and without /device:0\n")
    assert not (tmp_path / "l.json").exists()


def test_make_limits_refuses_two_devices_the_context_names_as_one_gpu(
        tmp_path: Path, run_script: RunScript) -> None:
    doc = json.loads((H200 / "stability" / "copy_1g_interleaved_10rep.json").read_text())
    entries = []
    for device in (0, 1):
        for entry in doc["benchmarks"]:
            named = entry["name"].replace("/manual_time", f"/device:{device}/manual_time")
            entries.append({**entry, "name": named, "run_name": named})
    doc["benchmarks"] = entries
    for device in (0, 1):
        doc["context"][f"device_{device}"] = f"NVIDIA H200, {doc['context']['gpu_uuid']}, bus"
    source = tmp_path / "one_gpu_twice.json"
    source.write_text(json.dumps(doc))
    done = run_script("limits", "-o", str(tmp_path / "l.json"), str(source))
    first = doc["benchmarks"][0]["name"].replace("/device:0/manual_time", "")
    assert (done.returncode, done.stderr) == (
        2, f"gpubench-tools limits: {source}: {first} is named both /device:0 and /device:1 "
           "(one GPU in the context)\n")


@pytest.mark.parametrize(("link", "best"), [
    ("Gen5 x16 (max Gen5 x16)", "Gen5 x16"), ("Gen4 x8 (max Gen5 x16)", "Gen5 x16"),
    ("Gen5 x16", None), ("(max )", None), ("Gen5 x16 (max Gen5 x16) ", None),
    ("(max " * 100_000, None), ("(max " * 100_000 + ")", "(max " * 99_999)])
def test_the_best_pcie_link_is_read_in_one_pass(link: str, best: str | None) -> None:
    """A pcie_link of many "(max " (a hostile context): read within moments, where a search
    tried each of them to the text's end (50 KB took 8 minutes)."""
    start = time.monotonic()
    assert make_limits.pcie_max(link) == best
    assert time.monotonic() - start < 1.0


def test_make_limits_writes_what_fleet_reads(tmp_path: Path) -> None:
    out = tmp_path / "limits.json"
    assert limits_main(["-o", str(out), "--tolerance=20",
                             str(H200 / "stability" / "copy_1g_interleaved_10rep.json")]) == 0
    limits = load_limits(out)
    assert limits.gpu_name == "NVIDIA H200"
    assert set(limits.floors) == {n for n in limits.floors if n.endswith("/1073741824")}
    assert "copy/DtoD/device/async/1073741824" in limits.floors


@pytest.mark.parametrize("bytes_per_second", [1e-30, 4e5, 123.456e6])
def test_make_limits_keeps_a_slow_figure_fleet_reads(tmp_path: Path,
                                                     bytes_per_second: float) -> None:
    """A figure below a thousandth of a GB/s (the toolkit reads rates down to 1e-30 B/s)
    keeps its digits: a floor rounded to 0 is one gpubench-tools fleet refuses."""
    doc = json.loads((H200 / "stability" / "copy_1g_interleaved_10rep.json").read_text())
    name = "copy/DtoD/device/async/1073741824"
    doc["benchmarks"] = [entry for entry in doc["benchmarks"]
                         if not (entry["run_name"].startswith(name)
                                 and entry.get("run_type") == "aggregate")]
    for entry in doc["benchmarks"]:
        if entry["run_name"].startswith(name):
            entry["bytes_per_second"] = bytes_per_second
    (tmp_path / "slow.json").write_text(json.dumps(doc))
    out = tmp_path / "limits.json"
    assert limits_main(["-o", str(out), str(tmp_path / "slow.json")]) == 0
    floor = load_limits(out).floors[name].floor_gb_per_s
    assert floor == pytest.approx(0.9 * bytes_per_second / 1e9, rel=1e-3)


@pytest.mark.parametrize("stdout", ["closed", "/dev/full"])
def test_make_limits_names_a_stdout_it_cannot_write(tmp_path: Path, stdout: str) -> None:
    argv = [*command("limits"), "-o", str(tmp_path / "l.json"),
            str(H200 / "stability" / "copy_1g_interleaved_10rep.json")]
    if stdout == "closed":
        done = subprocess.run(["bash", "-c", '"$@" >&-', "bash", *argv], capture_output=True,
                              text=True, timeout=60)
    else:
        with open(stdout, "w") as full:
            done = subprocess.run(argv, stdout=full, stderr=subprocess.PIPE, text=True,
                                  timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("gpubench-tools limits: stdout"), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


@pytest.mark.parametrize("args, expected", [
    (["-o", "{tmp}/l.json", "{tmp}/nowhere"], "no such file or directory"),
    (["-o", "{tmp}/l.json", "--tolerance=100", str(H200 / "saxpy.json")], "--tolerance"),
    (["-o", "{tmp}/l.json", str(H200 / "stability" / "launch_submit_interleaved_10rep.json")],
     "no device-timed bandwidth measurement"),
    (["-o", "{tmp}/l.json", "--gpu-name=NVIDIA H100", str(H200 / "saxpy.json")],
     "a NVIDIA H200, not a NVIDIA H100"),
    (["-o", "{tmp}/no/l.json", str(H200 / "saxpy.json")], "No such file or directory"),
    (["-o", "{tmp}/l.json", str(H200 / "saxpy.json"), str(H200 / "saxpy.json")],
     "the same file as"),
    (["-o", "{tmp}/l.json", str(H200 / "stability"),
      str(H200 / "stability" / "copy_1g_interleaved_10rep.json")], "the same file as"),
], ids=["missing input", "bad tolerance", "nothing to floor", "another model", "unwritable",
        "a file twice", "a file and its folder"])
def test_make_limits_bad_input_is_one_line_and_exit_2(tmp_path: Path, run_script: RunScript,
                                                      args: list[str], expected: str) -> None:
    done = run_script("limits", *[a.format(tmp=tmp_path) for a in args])
    assert done.returncode == 2, done.stderr
    assert expected in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


@pytest.mark.parametrize("make, expected", [
    (os.mkfifo, "file is empty"),
    (lambda path: path.symlink_to(path), "cannot read (Too many levels of symbolic links)"),
], ids=["FIFO", "link loop"])
def test_make_limits_names_an_input_as_it_is(tmp_path: Path, run_script: RunScript, make,
                                             expected: str) -> None:
    """An input that exists but is no regular file is named as it is, not as missing."""
    given = tmp_path / "given.json"
    make(given)
    done = run_script("limits", "-o", str(tmp_path / "l.json"), str(given))
    assert (done.returncode, done.stderr) == (2, f"gpubench-tools limits: {given}: {expected}\n")


def run_make_limits(*args: object) -> subprocess.CompletedProcess[bytes]:
    """gpubench-tools limits as a process, within 20 s: arguments as bytes, since a name need not be
    UTF-8."""
    return run_tool(["limits", *map(os.fsencode, map(str, args))], timeout=20, text=False)


@pytest.mark.parametrize("make, kind", [
    (lambda path: path.symlink_to("/dev/zero"), "a character device"),
    (os.mkfifo, "a FIFO"),
], ids=["device", "FIFO with a writer"])
def test_make_limits_names_a_folder_entry_that_is_no_file_without_opening_it(
        tmp_path: Path, make, kind: str) -> None:
    """A folder's *.json that is no regular file is named as it is, exit 2, and not opened:
    a FIFO whose writer never writes holds no one, as it would a reader."""
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "saxpy.json").write_bytes((H200 / "saxpy.json").read_bytes())
    make(folder / "x.json")
    writer = os.open(folder / "x.json", os.O_RDWR) if kind == "a FIFO" else None
    try:
        done = run_make_limits("-o", tmp_path / "l.json", folder)
    finally:
        if writer is not None:
            os.close(writer)
    assert (done.returncode, done.stderr.decode()) == (
        2, f"gpubench-tools limits: {folder / 'x.json'}: not a regular file: {kind}\n")


def test_make_limits_a_folder_without_results_is_named(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("no result\n")
    done = run_make_limits("-o", tmp_path / "l.json", tmp_path)
    assert (done.returncode, done.stderr.decode()) == (
        2, f"gpubench-tools limits: {tmp_path}: no result file (*.json, *.json.gz, *.json.xz, "
           "*.json.bz2) in the folder\n")


def test_make_limits_reads_and_writes_paths_that_are_not_utf8(tmp_path: Path) -> None:
    """A result's name and the output's that are not UTF-8 are read and written; the file names
    the source as it is."""
    folder = tmp_path / os.fsdecode(b"runs\xff")
    folder.mkdir()
    source = folder / os.fsdecode(b"saxpy\xfe.json")
    source.write_bytes((H200 / "saxpy.json").read_bytes())
    output = tmp_path / os.fsdecode(b"limits\xfd.json")
    done = run_make_limits("-o", output, folder)
    assert done.returncode == 0, done.stderr
    assert list(json.loads(output.read_text())["sources"]) == [str(source)]


def test_a_default_limits_file_that_is_no_file_is_named_without_opening_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """results/limits/ is listed: a FIFO there is refused by name, not opened (its writer
    would hold gpubench-tools fleet)."""
    monkeypatch.setattr(fleet_limits, "DEFAULT_DIRECTORY", tmp_path)
    monkeypatch.chdir(tmp_path)
    os.mkfifo(tmp_path / "h100.json")
    with pytest.raises(FleetInputError, match=r"^h100\.json: not a limits file \(not a regular "
                                              r"file: a FIFO\)$"):
        fleet_limits.default_limit_files()


def test_a_requires_pattern_too_slow_to_match_refuses_its_file(tmp_path: Path) -> None:
    """A pattern that backtracks without end on the GPUs' pcie_link is one line and exit 2,
    within name_filter's time limit, not a hang."""
    fleet = fb.build_fleet(4)
    fb.write_fleet(fleet, tmp_path / "fleet")
    limits = json.loads(COMMITTED.read_text())
    pattern = "^(.|.)*(.|.)*!$"
    limits["floors"]["copy/HtoD/pinned/async/1073741824"]["requires"] = {"pcie_link": pattern}
    slow = tmp_path / "slow.json"
    slow.write_text(json.dumps(limits))
    done = run_tool(["fleet", str(tmp_path / "fleet"), "--limits", str(slow)], timeout=30)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"gpubench-tools fleet: {slow}: not a limits file (the floor of "
                                  f"'copy/HtoD/pinned/async/1073741824': 'requires' {pattern}: "
                                  "takes longer than 2 s to match the context's 'pcie_link'"), \
        done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_limits_file_giving_a_key_two_values_is_refused(tmp_path: Path) -> None:
    """JSON leaves open which of the two counts: the file is refused, not read one way."""
    twice = tmp_path / "twice.json"
    twice.write_text(COMMITTED.read_text().replace(
        '"gpu_name": ', '"gpu_name": "NVIDIA A100", "gpu_name": ', 1))
    with pytest.raises(FleetInputError, match="invalid JSON: the key 'gpu_name' appears twice"):
        load_limits(twice)
