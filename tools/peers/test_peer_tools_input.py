"""The peer comparisons keep the toolkit's promise on any input: a comparison, or one line
`<tool>: <problem>` on stderr with exit status 2; never a traceback, a hang or a line a
control character breaks. Every file argument is tried with files of every kind, and the
nvbandwidth JSON with any JSON value in any of its places."""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_compare_bandwidth import MIB, gpubench_file, nvbandwidth_file

HERE = Path(__file__).parent
TOOLS = ("compare_bandwidth.py", "compare_latency.py")
PROCESS_SETTINGS = settings(max_examples=25, deadline=None,
                            suppress_health_check=[HealthCheck.too_slow,
                                                   HealthCheck.function_scoped_fixture])


def run(tool, *args, **kwargs):
    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("timeout", 60)
    return subprocess.run([sys.executable, str(HERE / tool), *(os.fsencode(str(a)) for a in args)],
                          stderr=subprocess.PIPE, **kwargs)


def assert_kept_promise(proc, tool, succeeds=None):
    """Exit 0 with nothing on stderr, or exit 2 with one line `<tool>: ...`; every line of
    stdout printable."""
    err = proc.stderr.decode("utf-8", "backslashreplace")
    shown = f"exit {proc.returncode}; stderr: {err[:2000]!r}"
    assert b"Traceback" not in proc.stderr, shown
    if proc.returncode == 2:
        assert succeeds is not True, shown
        assert err.startswith(f"{tool}: ") and err.count("\n") == 1 and err.endswith("\n"), shown
    else:
        assert proc.returncode == 0 and succeeds is not False and err == "", shown
    for line in (proc.stdout or b"").decode("utf-8").splitlines():
        assert line.isprintable(), repr(line)


def arguments(tool, gpubench, other):
    """`tool`'s arguments with `other` as its file of another tool's output."""
    if tool == "compare_bandwidth.py":
        return [gpubench, other, "--buffer-mib", MIB]
    return [gpubench, "--nvbandwidth", other]


@pytest.fixture
def files(tmp_path):
    """A gpubench result with peer copies and chases, and nvbandwidth output for both tools."""
    ours = gpubench_file(tmp_path, {"peer/ce/write/0to1": 390.0})
    doc = json.loads(ours.read_text())
    for index, ns in enumerate((849.0, 850.0, 851.0)):
        doc["benchmarks"].append({
            "name": "latency/chase/peer/0to1/2097152/manual_time", "run_type": "iteration",
            "run_name": "latency/chase/peer/0to1/2097152/manual_time", "repetitions": 3,
            "repetition_index": index, "threads": 1, "iterations": 10, "time_unit": "us",
            "real_time": 100.0, "cpu_time": 1.0, "ns_per_load": ns})
    ours.write_text(json.dumps(doc))
    theirs = nvbandwidth_file(tmp_path, {
        "device_to_device_memcpy_write_ce": [["N/A", 390.0], [380.0, "N/A"]],
        "device_to_device_latency_sm": [["N/A", 826.9], [826.9, "N/A"]]})
    return ours, theirs


@pytest.mark.parametrize("tool", TOOLS)
def test_the_files_compare(files, tool):
    proc = run(tool, *arguments(tool, *files))
    assert_kept_promise(proc, tool, succeeds=True)


def special_path(kind, tmp_path):
    if kind == "fifo":
        os.mkfifo(tmp_path / "fifo.json")
        return tmp_path / "fifo.json"
    if kind == "link loop":
        (tmp_path / "loop.json").symlink_to(tmp_path / "loop.json")
        return tmp_path / "loop.json"
    if kind == "link to nothing":
        (tmp_path / "gone.json").symlink_to(tmp_path / "missing.json")
        return tmp_path / "gone.json"
    if kind == "folder":
        return tmp_path
    if kind == "missing":
        return tmp_path / "missing.json"
    return Path(kind)


KINDS = ["/dev/zero", "/dev/urandom", "/dev/null", "fifo", "link loop", "link to nothing",
         "folder", "missing"]


FILE_ARGUMENTS = [(tool, position) for tool in TOOLS for position in ("gpubench", "nvbandwidth")]
FILE_ARGUMENTS.append(("compare_latency.py", "gpu-latency"))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("tool,position", FILE_ARGUMENTS)
def test_a_file_of_every_kind_is_one_line(tmp_path, files, tool, position, kind):
    path = special_path(kind, tmp_path)
    if kind.startswith("/") and not path.exists():
        pytest.skip(f"{kind} does not exist here")
    ours, theirs = files
    args = {"gpubench": arguments(tool, path, theirs),
            "nvbandwidth": arguments(tool, ours, path),
            "gpu-latency": [ours, "--gpu-latency", path]}[position]
    started = time.monotonic()
    proc = run(tool, *args, timeout=30)
    assert_kept_promise(proc, tool, succeeds=False)
    assert time.monotonic() - started < 20


@pytest.mark.parametrize("tool", TOOLS)
def test_closed_and_full_stdout_are_one_line(files, tool):
    closed = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", sys.executable,
                             str(HERE / tool), *map(str, arguments(tool, *files))],
                            stderr=subprocess.PIPE, timeout=60)
    assert (closed.returncode, closed.stderr.decode()) == (2, f"{tool}: stdout: closed\n")
    if Path("/dev/full").exists():
        with open("/dev/full", "wb") as full:
            proc = run(tool, *arguments(tool, *files), stdout=full)
        assert (proc.returncode, proc.stderr.decode()) == \
            (2, f"{tool}: stdout: No space left on device\n")


@pytest.mark.parametrize("value", ["0", "-1", "x", "1e3", "٣", "²", " 4", "9" * 5000, ""])
def test_a_buffer_size_that_is_no_whole_number_of_mib_is_one_line(files, value):
    ours, theirs = files
    proc = run("compare_bandwidth.py", ours, theirs, "--buffer-mib", value)
    assert_kept_promise(proc, "compare_bandwidth.py", succeeds=False)
    assert b"--buffer-mib" in proc.stderr


def test_a_case_given_twice_is_refused_as_a_guess(tmp_path, files):
    ours, theirs = files
    again = tmp_path / "again.json"
    again.write_bytes(theirs.read_bytes())
    proc = run("compare_bandwidth.py", ours, theirs, again, "--buffer-mib", MIB)
    assert_kept_promise(proc, "compare_bandwidth.py", succeeds=False)
    assert b"device_to_device_memcpy_write_ce again" in proc.stderr


def test_a_name_with_control_characters_is_printed_escaped(files):
    ours, theirs = files
    doc = json.loads(theirs.read_text())
    doc["nvbandwidth"]["testcases"][0]["status"] = "Fail\x1b[2J\ned"
    doc["nvbandwidth"]["testcases"].append({"name": "odd\ncase\u2028", "status": "Passed",
                                            "bandwidth_matrix": [["1"]]})
    theirs.write_text(json.dumps(doc))
    proc = run("compare_bandwidth.py", ours, theirs, "--buffer-mib", MIB)
    assert_kept_promise(proc, "compare_bandwidth.py", succeeds=False)  # nothing left to compare
    doc["nvbandwidth"]["testcases"][0]["status"] = "Passed"
    theirs.write_text(json.dumps(doc))
    proc = run("compare_bandwidth.py", ours, theirs, "--buffer-mib", MIB)
    assert_kept_promise(proc, "compare_bandwidth.py", succeeds=True)
    assert b"odd\\ncase\\u2028: not compared" in proc.stdout


# Any JSON value: NaN, infinities, integers past a double, lone surrogates, control characters.
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**400, 10**400) | st.floats()
    | st.text(st.characters(exclude_categories=()), max_size=20)
    | st.sampled_from(["N/A", "", "1e400", "-5", "nan", "12.5", "Passed"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12)
PLACES = ["document", "nvbandwidth", "testcases", "case", "name", "status", "bandwidth_matrix",
          "row", "cell"]


def with_value_at(doc, place, value):
    case = doc["nvbandwidth"]["testcases"][0]
    if place == "document":
        return value
    if place == "nvbandwidth":
        doc["nvbandwidth"] = value
    elif place == "testcases":
        doc["nvbandwidth"]["testcases"] = value
    elif place == "case":
        doc["nvbandwidth"]["testcases"][0] = value
    elif place in ("name", "status", "bandwidth_matrix"):
        case[place] = value
    elif place == "row":
        case["bandwidth_matrix"][1] = value
    else:
        case["bandwidth_matrix"][1][0] = value
    return doc


@pytest.mark.parametrize("tool", TOOLS)
@PROCESS_SETTINGS
@given(place=st.sampled_from(PLACES), value=json_values)
def test_any_json_in_any_place_of_nvbandwidths_output(files, tool, place, value):
    ours, theirs = files
    doc = with_value_at(json.loads(theirs.read_text()), place, value)
    hostile = theirs.with_name("hostile.json")
    hostile.write_text(json.dumps(doc, ensure_ascii=True))
    assert_kept_promise(run(tool, *arguments(tool, ours, hostile)), tool)


@PROCESS_SETTINGS
@example(lines=["1000000 1980 1e308 17.2 34.0"])  # a size past a double's range
@example(lines=["1e300 1980 16 1e-300 34.0"])  # a time that rounds to 0 ns
@example(lines=["1e-300 1980 16 1e300 34.0"])  # a time past a double's range
@given(lines=st.lists(st.lists(st.one_of(
    st.sampled_from(["0", "-1", "nan", "inf", "1e308", "1e-320", "1000000", "1980", "17.2"]),
    st.text(st.characters(exclude_categories=()), max_size=6)), min_size=5, max_size=5)
    .map(" ".join), max_size=6))
def test_any_lines_in_gpu_latencys_output(tmp_path, files, lines):
    ours, _ = files
    doc = json.loads(ours.read_text())
    for entry in doc["benchmarks"]:
        entry["name"] = entry["name"].replace("peer/0to1", "device")
        entry["run_name"] = entry["run_name"].replace("peer/0to1", "device")
    ours.write_text(json.dumps(doc))
    text = tmp_path / "gpu_latency.txt"
    text.write_text("\n".join(lines), encoding="utf-8", errors="surrogatepass")
    proc = run("compare_latency.py", ours, "--gpu-latency", text)
    assert_kept_promise(proc, "compare_latency.py")


ODD_CHASES = ["latency/chase", "latency/chase/4096", "latency/chase/peer/4096",
              "latency/chase/peer/1to/4096", "latency/chase/peer/to/4096",
              "latency/chase/peer/0to1to2/4096", "latency/chase/peer/٣to1/4096",
              "latency/chase/peer/99999999999999999999to1/4096", "latency/chase/peer/7to9/4096",
              "latency/chase/device/x/4096", "latency/chase/host_pinned/4096/device:99",
              "latency/chase/host_pinned/4096/device:", "latency/chase/\x1b[2J/4096",
              "latency/chase/device/0", "latency/chase/device/2²"]


def test_chase_names_of_every_odd_shape_are_left_out_or_compared(files):
    ours, theirs = files
    doc = json.loads(ours.read_text())
    template = next(e for e in doc["benchmarks"] if e["name"].startswith("latency/"))
    for name in ODD_CHASES:
        doc["benchmarks"].append(dict(template, name=name, run_name=name, repetitions=1,
                                      repetition_index=0))
    ours.write_text(json.dumps(doc))
    theirs_doc = json.loads(theirs.read_text())
    theirs_doc["nvbandwidth"]["testcases"].append(
        {"name": "host_device_latency_sm", "status": "Passed", "bandwidth_matrix": [["1200"]]})
    theirs.write_text(json.dumps(theirs_doc))
    proc = run("compare_latency.py", ours, "--nvbandwidth", theirs)
    assert_kept_promise(proc, "compare_latency.py", succeeds=True)
    compared = [line.split()[0] for line in proc.stdout.decode().splitlines()]
    assert compared == ["latency/chase/peer/0to1/2097152"]


@pytest.mark.parametrize("tool", TOOLS)
@PROCESS_SETTINGS
@given(text=st.text(st.characters(exclude_categories=()), min_size=1, max_size=30))
def test_any_text_in_gpubench_names(files, tool, text):
    """Text of any characters where a chase's place, a peer pair or a size stands: compared,
    left out, or the file refused in one line."""
    ours, theirs = files
    doc = json.loads(ours.read_text())
    template = next(e for e in doc["benchmarks"] if e["name"].startswith("latency/"))
    for name in (f"latency/chase/{text}/4096", f"latency/chase/peer/{text}/4096",
                 f"latency/chase/device/{text}", f"peer/ce/write/{text}/{MIB << 20}"):
        doc["benchmarks"].append(dict(template, name=name, run_name=name, repetitions=1,
                                      repetition_index=0))
    hostile = ours.with_name("hostile_names.json")
    hostile.write_text(json.dumps(doc, ensure_ascii=True))
    assert_kept_promise(run(tool, *arguments(tool, hostile, theirs)), tool)
