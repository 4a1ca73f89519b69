"""gpu_session.sh and sanitize.sh, the one-command GPU sessions, with stand-ins for the build's
programs, nvidia-smi, ctest and compute-sanitizer: a failed step is a non-zero exit status and a
line naming it, and what a session needs but lacks is one line before anything runs."""

import os
import shutil
import signal
import stat
import subprocess
import time
from pathlib import Path

import pytest
from conftest import SCRIPTS

# The GPU machine's one-command sessions are developer tools, in the repository's tools/.
TOOLS_DIR = SCRIPTS.parent / "tools"

FAMILIES = ("saxpy", "launch", "copy", "peer", "latency")

# The build's gpubench: --info prints a line; a family run writes its --benchmark_out, or, for a
# family in FAKE_FAILING, exits 1 without writing it.
GPUBENCH = r"""#!/bin/sh
out="" family=""
for arg in "$@"; do
  case $arg in
    --info) echo "fake gpubench: info"; exit 0 ;;
    --benchmark_out=*) out=${arg#--benchmark_out=} ;;
    --benchmark_filter=*) family=${arg#--benchmark_filter=^}; family=${family%/} ;;
  esac
done
case " ${FAKE_FAILING:-} " in
  *" $family "*) echo "fake gpubench: $family failed" >&2; exit 1 ;;
esac
echo '{"benchmarks": []}' > "$out"
"""
NVIDIA_SMI = """#!/bin/sh
case "$*" in
  *--query-gpu=name\\ *noheader*) echo "NVIDIA H200" ;;
  *) printf 'name, driver_version\\nNVIDIA H200, 570.00\\n' ;;
esac
"""
FAILING_NVIDIA_SMI = """#!/bin/sh
echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
exit 9
"""
CTEST = """#!/bin/sh
echo "ctest stand-in"
exit "${FAKE_CTEST_STATUS:-0}"
"""
# compute-sanitizer runs the program it is given and says what it found; FAKE_SANITIZER_LOG
# lists its calls.
COMPUTE_SANITIZER = """#!/bin/sh
echo "$*" >> "$FAKE_SANITIZER_LOG"
echo "========= ERROR SUMMARY: 0 errors"
"""
# What sanitize.sh runs besides the programs it checks for, for a PATH that holds nothing else.
SANITIZE_TOOLS = ("awk", "cat", "grep", "head", "mkdir", "rm", "setsid", "tail")


def executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def build_dir(tmp_path: Path) -> Path:
    build = tmp_path / "build"
    executable(build / "gpubench", GPUBENCH)
    executable(build / "tests" / "gpubench_gpu_tests", "#!/bin/sh\necho gpu tests\n")
    return build


def stand_ins(tmp_path: Path, nvidia_smi: str | None = NVIDIA_SMI) -> Path:
    """A directory of stand-ins to put first on PATH."""
    bin_dir = tmp_path / "bin"
    executable(bin_dir / "ctest", CTEST)
    executable(bin_dir / "compute-sanitizer", COMPUTE_SANITIZER)
    if nvidia_smi is not None:
        executable(bin_dir / "nvidia-smi", nvidia_smi)
    return bin_dir


def gpu_session(tmp_path: Path, build: Path, **env: str) -> subprocess.CompletedProcess[str]:
    path = f"{stand_ins(tmp_path)}{os.pathsep}{os.environ['PATH']}"
    return subprocess.run(["bash", str(TOOLS_DIR / "gpu_session.sh")], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PATH": path, "SKIP_BUILD": "1",
                               "BUILD_DIR": str(build), "OUT": str(tmp_path / "out"), **env})


def test_a_session_where_every_step_succeeds_exits_0(tmp_path: Path) -> None:
    proc = gpu_session(tmp_path, build_dir(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr == ""
    assert all((tmp_path / "out" / f"{family}.json").is_file() for family in FAMILIES)


def test_no_gpubench_is_one_line_before_any_step(tmp_path: Path) -> None:
    proc = gpu_session(tmp_path, tmp_path / "nonexistent")
    assert proc.returncode == 1
    assert proc.stderr == (f"gpu_session: failed: {tmp_path}/nonexistent/gpubench: no such "
                           "executable (BUILD_DIR; SKIP_BUILD=1 runs an existing build) "
                           f"(logs in {tmp_path}/out)\n")
    assert "rc=" not in proc.stdout
    assert not list((tmp_path / "out").glob("*.txt"))


def test_failed_tests_fail_the_session(tmp_path: Path) -> None:
    proc = gpu_session(tmp_path, build_dir(tmp_path), FAKE_CTEST_STATUS="8", SKIP_TESTS="0")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "ctest rc=8" in proc.stdout
    assert proc.stderr.splitlines() == [
        f"gpu_session: failed: ctest (exit status 8) (logs in {tmp_path}/out)"]
    # The families still ran.
    assert all((tmp_path / "out" / f"{family}.json").is_file() for family in FAMILIES)


def test_each_failed_family_is_named(tmp_path: Path) -> None:
    proc = gpu_session(tmp_path, build_dir(tmp_path), FAKE_FAILING="saxpy launch peer latency")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.splitlines() == [
        "gpu_session: failed: saxpy (exit status 1); launch (exit status 1); peer (exit status "
        f"1); latency (exit status 1) (logs in {tmp_path}/out)"]


def test_names_starting_with_a_dash_are_paths(tmp_path: Path) -> None:
    """OUT and BUILD_DIR named `-...` are folders to every command they are passed to."""
    build = build_dir(tmp_path)
    build.rename(tmp_path / "-build")
    proc = gpu_session(tmp_path, Path("-build"), OUT="-out")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr == ""
    assert all((tmp_path / "-out" / f"{family}.json").is_file() for family in FAMILIES)


@pytest.mark.parametrize("make", [lambda path: path.write_text("a file"),
                                  lambda path: path.symlink_to("nowhere/out")],
                         ids=["a file", "a link to nothing"])
def test_an_out_that_cannot_be_a_folder_is_one_line(tmp_path: Path, make) -> None:
    make(tmp_path / "out")
    proc = gpu_session(tmp_path, build_dir(tmp_path))
    assert proc.returncode == 1
    assert proc.stderr == (f"gpu_session: {tmp_path}/out: cannot create the output directory "
                           "(OUT): File exists\n")


def test_a_failed_family_leaves_no_earlier_result(tmp_path: Path) -> None:
    """An earlier session's copy.json would read as this session's result."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "copy.json").write_text('{"earlier": "session"}')
    (out / "saxpy.json").write_text('{"earlier": "session"}')
    proc = gpu_session(tmp_path, build_dir(tmp_path), FAKE_FAILING="copy")
    assert proc.returncode == 1
    assert not (out / "copy.json").exists()
    assert "earlier" not in (out / "saxpy.json").read_text()


@pytest.mark.parametrize("name", ["../escaped", "sub/dir", "..", "*", "sax?y", "saxpy.*"])
def test_a_families_name_that_is_not_a_family_is_one_line_before_any_step(
        tmp_path: Path, name: str) -> None:
    """A name is never a path out of OUT nor a glob: nothing is written, removed or run."""
    (tmp_path / "escaped.json").write_text("kept")
    (tmp_path / "saxpy.json").write_text("kept")
    proc = gpu_session(tmp_path, build_dir(tmp_path), FAMILIES=f"saxpy {name}")
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == (f"gpu_session: FAMILIES: '{name}' is not a family name (letters, "
                           "digits and underscores, as gpubench --describe lists them)\n")
    assert not (tmp_path / "out").exists()
    assert (tmp_path / "escaped.json").read_text() == "kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bin", "build", "escaped.json",
                                                           "saxpy.json"]


def test_families_split_on_any_whitespace(tmp_path: Path) -> None:
    proc = gpu_session(tmp_path, build_dir(tmp_path), FAMILIES=" saxpy\n\tlaunch ")
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / "out").glob("*.json")) == ["launch.json",
                                                                         "saxpy.json"]


def minimal_path(tmp_path: Path, with_stand_ins: Path | None) -> str:
    """A PATH of the stand-ins (where given) and the plain tools sanitize.sh uses, and nothing
    else: no nvidia-smi or compute-sanitizer this machine may have."""
    tools = tmp_path / "tools"
    tools.mkdir()
    for tool in SANITIZE_TOOLS:
        found = shutil.which(tool)
        assert found, tool
        (tools / tool).symlink_to(found)
    return os.pathsep.join(map(str, [with_stand_ins, tools] if with_stand_ins else [tools]))


def sanitize(tmp_path: Path, build: Path, path: str,
             **env: str) -> subprocess.CompletedProcess[str]:
    bash = shutil.which("bash")
    assert bash
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return subprocess.run([bash, str(TOOLS_DIR / "sanitize.sh"), str(build)], cwd=work,
                          capture_output=True, text=True, timeout=120,
                          env={"PATH": path, "FAKE_SANITIZER_LOG": str(tmp_path / "calls"),
                               **env})


def test_sanitize_runs_with_everything_it_needs(tmp_path: Path) -> None:
    """The control: with every program present it runs the three sanitizer passes."""
    proc = sanitize(tmp_path, build_dir(tmp_path), minimal_path(tmp_path, stand_ins(tmp_path)))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len((tmp_path / "calls").read_text().splitlines()) == 3
    assert (tmp_path / "work" / "results" / "h200" / "sanitizer").is_dir()


def test_sanitize_takes_names_starting_with_a_dash_as_paths(tmp_path: Path) -> None:
    """A build directory and OUT named `-...` are folders to the commands, not options."""
    (tmp_path / "work").mkdir()
    build_dir(tmp_path).rename(tmp_path / "work" / "-build")
    proc = subprocess.run([shutil.which("bash"), str(TOOLS_DIR / "sanitize.sh"), "-build"],
                          cwd=tmp_path / "work", capture_output=True, text=True, timeout=120,
                          env={"PATH": minimal_path(tmp_path, stand_ins(tmp_path)),
                               "FAKE_SANITIZER_LOG": str(tmp_path / "calls"), "OUT": "-out"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    calls = (tmp_path / "calls").read_text().splitlines()
    assert len(calls) == 3 and all(" ./-build/" in call for call in calls), calls
    assert (tmp_path / "work" / "-out" / "memcheck_tests.summary.txt").is_file()


def test_sanitize_names_everything_missing_before_any_run(tmp_path: Path) -> None:
    build = tmp_path / "nonexistent"
    proc = sanitize(tmp_path, build, minimal_path(tmp_path, None))
    assert proc.returncode == 2
    assert proc.stderr == (
        f"sanitize.sh: missing: {build}/gpubench (build it, or name the build directory); "
        f"{build}/tests/gpubench_gpu_tests (build it, or name the build directory); "
        "compute-sanitizer (the CUDA toolkit's bin directory on PATH); a GPU name from "
        "nvidia-smi --query-gpu=name for results/<gpu>/sanitizer (set OUT)\n")
    assert proc.stdout == ""
    assert not (tmp_path / "work" / "results").exists()


@pytest.mark.parametrize("nvidia_smi", [None, FAILING_NVIDIA_SMI], ids=["absent", "failing"])
def test_sanitize_without_a_gpu_name_needs_out(tmp_path: Path, nvidia_smi: str | None) -> None:
    """No results//sanitizer from an nvidia-smi that names no GPU; with OUT it is not needed."""
    path = minimal_path(tmp_path, stand_ins(tmp_path, nvidia_smi))
    proc = sanitize(tmp_path, build_dir(tmp_path), path)
    assert proc.returncode == 2
    assert proc.stderr == ("sanitize.sh: missing: a GPU name from nvidia-smi --query-gpu=name "
                           "for results/<gpu>/sanitizer (set OUT)\n")
    assert not (tmp_path / "calls").exists() and not (tmp_path / "work" / "results").exists()
    proc = sanitize(tmp_path, build_dir(tmp_path), path, OUT=str(tmp_path / "sanitizer"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(list((tmp_path / "sanitizer").glob("*.summary.txt"))) == 3


# The build's gpubench for a family run that lasts until it is signalled: it names its process
# in started, and the signal it ends on in signalled.
LASTING_GPUBENCH = r"""#!/bin/sh
case "$*" in *--info*) exit 0 ;; esac
for signal in HUP INT TERM; do
  trap "echo $signal > '{dir}/signalled'; exit 1" $signal
done
echo $$ > '{dir}/started'
while :; do sleep 0.05; done
"""


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def signal_once_started(proc: subprocess.Popen[str], tmp_path: Path,
                        signal_name: str) -> tuple[str, bool]:
    """`proc` sent SIG<signal_name> once the LASTING_GPUBENCH under it has started: its stderr
    once it has ended, and whether that program outlived it (then killed)."""
    started = tmp_path / "started"
    deadline = time.monotonic() + 30
    while not started.is_file() or not started.read_text().strip():
        assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    program = int(started.read_text())
    proc.send_signal(getattr(signal, f"SIG{signal_name}"))
    try:
        _, stderr = proc.communicate(timeout=30)
    finally:
        proc.kill()
    outlived = process_alive(program)
    if outlived:
        os.kill(program, signal.SIGKILL)
    return stderr, outlived


# The build's gpubench whose --info never returns (a GPU or driver in trouble) and that ends on
# a signal, SIGINT among them: bash leaves it ignored in a command it runs in the background.
HANGING_INFO_GPUBENCH = r"""#!/bin/sh
for signal in HUP INT TERM; do
  trap "echo $signal > '{dir}/signalled'; exit 1" $signal
done
case "$*" in *--info*) echo $$ > '{dir}/started' ;; *) exit 0 ;; esac
while :; do sleep 0.05; done
"""


SIGNALLED_STEPS = {"family": (LASTING_GPUBENCH, "saxpy"), "info": (HANGING_INFO_GPUBENCH, "")}


@pytest.mark.parametrize(("step", "signal_name"), [
    ("family", "HUP"), ("family", "INT"), ("family", "TERM"), ("info", "INT"), ("info", "TERM")])
def test_a_signal_to_the_session_stops_the_running_gpubench(tmp_path: Path, step: str,
                                                             signal_name: str) -> None:
    """A scheduler's time limit or Ctrl-C must not leave gpubench holding the GPU: in a
    family's run, or in an --info that never returns."""
    program, families = SIGNALLED_STEPS[step]
    build = tmp_path / "build"
    executable(build / "gpubench", program.replace("{dir}", str(tmp_path)))
    path = f"{stand_ins(tmp_path)}{os.pathsep}{os.environ['PATH']}"
    session = subprocess.Popen(
        ["bash", str(TOOLS_DIR / "gpu_session.sh")], cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PATH": path, "SKIP_BUILD": "1", "SKIP_TESTS": "1",
             "FAMILIES": families, "BUILD_DIR": str(build), "OUT": str(tmp_path / "out")})
    stderr, outlived = signal_once_started(session, tmp_path, signal_name)
    assert session.returncode == 128 + getattr(signal, f"SIG{signal_name}"), stderr
    assert stderr.splitlines() == [
        f"gpu_session: stopped by SIG{signal_name} (logs in {tmp_path}/out)"]
    assert (tmp_path / "signalled").read_text().strip() == signal_name
    assert not outlived


def test_a_gpubench_info_that_never_returns_fails_at_its_limit(tmp_path: Path) -> None:
    build = tmp_path / "build"
    executable(build / "gpubench", HANGING_INFO_GPUBENCH.replace("{dir}", str(tmp_path)))
    proc = gpu_session(tmp_path, build, SKIP_TESTS="1", FAMILIES="", INFO_TIMEOUT="1")
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == (f"gpu_session: failed: gpubench --info (exit status 124) (logs in "
                           f"{tmp_path}/out)\n")


# A compute-sanitizer that runs its program (its first word that names a file, whatever the tool
# and options before it) and waits for it, as the real one does.
WAITING_SANITIZER = """#!/bin/sh
while [ "$#" -gt 0 ] && [ ! -f "$1" ]; do
  shift
done
"$@"
"""


@pytest.mark.parametrize("signal_name", ["HUP", "INT", "TERM"])
def test_a_signal_to_sanitize_stops_the_sanitizer_and_its_program(tmp_path: Path,
                                                                   signal_name: str) -> None:
    """`timeout`, Ctrl-C or a scheduler stopping sanitize.sh stops what runs under the sanitizer
    too, instead of leaving it holding the GPU."""
    build = tmp_path / "build"
    executable(build / "gpubench", "#!/bin/sh\n")
    executable(build / "tests" / "gpubench_gpu_tests",
               LASTING_GPUBENCH.replace("{dir}", str(tmp_path)))
    bin_dir = stand_ins(tmp_path)
    executable(bin_dir / "compute-sanitizer", WAITING_SANITIZER)
    sanitizer = subprocess.Popen(
        [shutil.which("bash"), str(TOOLS_DIR / "sanitize.sh"), str(build)], cwd=tmp_path,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
             "OUT": str(tmp_path / "out")})
    stderr, outlived = signal_once_started(sanitizer, tmp_path, signal_name)
    assert sanitizer.returncode == 128 + getattr(signal, f"SIG{signal_name}"), stderr
    assert stderr.splitlines() == [
        f"sanitize.sh: stopped by SIG{signal_name} (summaries so far in {tmp_path}/out)"]
    assert (tmp_path / "signalled").read_text().strip() == "TERM"
    assert not outlived


@pytest.mark.parametrize(("skipped", "missing"), [
    ({}, "perl"), ({}, "stdbuf"), ({"FAMILIES": ""}, "ctest"),
    ({"SKIP_TESTS": "1", "FAMILIES": "saxpy"}, "perl")])
def test_a_tool_missing_from_path_is_named_before_any_step(tmp_path: Path, skipped: dict,
                                                           missing: str) -> None:
    """A family's console goes through stdbuf and perl: without one, gpubench ended by SIGPIPE
    and the session named the family, not the tool."""
    bin_dir = tmp_path / "path"
    bin_dir.mkdir()
    for tool in ("bash", "timeout", "stdbuf", "perl", "mkdir", "rm", "cat", "grep", "head",
                 "date", "nproc"):
        if tool != missing and (found := shutil.which(tool)):
            (bin_dir / tool).symlink_to(found)
    stand_ins(tmp_path)
    if missing != "ctest":
        (tmp_path / "bin" / "ctest").rename(bin_dir / "ctest")
    (tmp_path / "bin" / "nvidia-smi").rename(bin_dir / "nvidia-smi")
    proc = subprocess.run([str(bin_dir / "bash"), str(TOOLS_DIR / "gpu_session.sh")], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120,
                          env={"PATH": str(bin_dir), "SKIP_BUILD": "1",
                               "BUILD_DIR": str(build_dir(tmp_path)),
                               "OUT": str(tmp_path / "out"), **skipped})
    assert (proc.returncode, proc.stderr) == (1, f"gpu_session: not found on PATH: {missing}\n")
    assert proc.stdout == "" and not (tmp_path / "out").exists()
