"""gpubench-tools flags: the gpubench flags of the settings a result's context states, which
gpubench-tools gate records its candidate with."""

import unicodedata

import pytest
from forked_command import run_tool
from gbench_builder import copy_run, document, write_json
from hostile_inputs import hostile_text
from hypothesis import given, settings

from gpubench_tools.reading.recorded_flags import UNWRITTEN, SettingError, recorded_flags


@settings(max_examples=300, deadline=None)
@given(value=hostile_text)
def test_a_filter_is_its_flag_whole_or_refused(value: str) -> None:
    """Any text gpubench can have written is the flag's value as it stands (a space, a quote,
    `=`, a leading dash); the rest, which no line of flags could hold as it is, is refused."""
    if any(unicodedata.category(ch) in UNWRITTEN for ch in value):
        with pytest.raises(SettingError, match="^context 'benchmark_filter' is not text"):
            recorded_flags({"benchmark_filter": value})
    else:
        assert recorded_flags({"benchmark_filter": value}) == [f"--benchmark_filter={value}"]


def test_a_context_without_settings_gives_no_flag() -> None:
    """A result written before gpubench stated its settings: each is gpubench's default."""
    assert recorded_flags({"gpu_name": "NVIDIA H200"}) == []


def test_the_flags_are_a_line_each(tmp_path) -> None:
    doc = document(copy_run("HtoD", "pinned", "async", 4096, [10.0]),
                   benchmark_filter="^copy/(HtoD|DtoH) x=1", benchmark_min_time="100x",
                   saxpy_l2="warm", energy="NVML's energy counter", selected_devices="0,1")
    proc = run_tool(["flags", str(write_json(tmp_path / "r.json", doc))], timeout=60)
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout.splitlines() == ["--benchmark_filter=^copy/(HtoD|DtoH) x=1",
                                        "--benchmark_min_time=100x", "--energy", "--device=0,1",
                                        "--l2=warm"]


def test_the_family_flags_given_are_flags_again() -> None:
    """gpubench states each family flag given under its own name; a size list may hold spaces,
    which the flag holds whole. --l2, stated by saxpy_l2 too, is given once."""
    context = {"benchmark_filter": "^copy/", "--sizes": "1G, 4G", "saxpy_l2": "warm",
               "--l2": "warm", "--latency-link-sizes": "2M"}
    assert recorded_flags(context) == ["--benchmark_filter=^copy/", "--l2=warm",
                                       "--sizes=1G, 4G", "--latency-link-sizes=2M"]


def families_declaring(flag: str, default: str) -> dict:
    """gpubench_families as gpubench writes it, declaring one family flag."""
    return {"schema": 1, "families": [
        {"name": "launch", "flags": []},
        {"name": "saxpy", "flags": [{"name": flag, "default": default, "help": "saxpy"}]}]}


@pytest.mark.parametrize(("context", "flags"), [
    ({"saxpy_l2": "cold"}, []),  # the default, no --l2 given: the candidate is given none either
    ({"saxpy_l2": "warm"}, ["--l2=warm"]),
    ({"saxpy_l2": "cold", "--l2": "cold"}, ["--l2=cold"]),  # given, though it is the default
    ({"saxpy_l2": "warm", "--l2": "warm"}, ["--l2=warm"]),
])
def test_a_setting_holding_its_family_flags_default_is_no_flag_given(context: dict,
                                                                     flags: list[str]) -> None:
    """A baseline not given --l2 states saxpy_l2 "cold", the default its gpubench_families
    declares: its candidate is given no --l2, so both contexts lack the "--l2" a flag given
    adds, and gpubench-tools compare shows no difference of settings the gate itself made."""
    assert recorded_flags(context | {"gpubench_families": families_declaring("--l2", "cold")}) \
        == flags


@pytest.mark.parametrize("families", [
    None, {"schema": 1}, {"families": "saxpy"}, {"families": [7, {"flags": 7}]},
    {"families": [{"flags": [7, {"name": "--l2"}, {"name": "--l2", "default": 0}]}]},
    {"families": [{"name": "saxpy", "flags": [{"name": "--sizes", "default": "cold"}]}]},
])
def test_a_setting_without_a_declared_default_is_its_flag(families: object) -> None:
    """Where the context declares no default for --l2 (a result of a gpubench before
    gpubench_families, or one whose families are not of its shape), saxpy_l2 is the flag."""
    context = {"saxpy_l2": "cold"} if families is None else \
        {"saxpy_l2": "cold", "gpubench_families": families}
    assert recorded_flags(context) == ["--l2=cold"]


@pytest.mark.parametrize(("context", "message"), [
    ({"--benchmark_out": "/etc/passwd"}, "names no family flag"),
    ({"--device": "1"}, "names no family flag"),
    ({"--info": ""}, "names no family flag"),
    ({"--Sizes": "1G"}, "names no family flag"),
    ({"--": "1G"}, "names no family flag"),
    ({"--sizes": 4096}, "is not text a flag can hold"),
    ({"--sizes": "1G\n--benchmark_out=x"}, "is not text a flag can hold"),
    ({"saxpy_l2": "cold", "--l2": "warm"}, "states --l2 twice"),
])
def test_a_key_no_family_flag_can_be_is_refused(context: dict, message: str) -> None:
    """What gpubench never writes: a key in a flag's shape that would give a flag of
    gpubench's own or Google Benchmark's (an output over any file), or two values of one."""
    with pytest.raises(SettingError, match=message):
        recorded_flags(context)


def run_with_build_type(tmp_path, build_type: str, **context: object):
    doc = document(copy_run("HtoD", "pinned", "async", 4096, [10.0]), saxpy_l2="warm", **context)
    result = write_json(tmp_path / "r.json", doc)
    return result, run_tool(["flags", f"--build-type={build_type}", str(result)], timeout=60)


@pytest.mark.parametrize("context", [{"gpubench_build_type": "Release"}, {}])
def test_a_result_of_the_binarys_build_type_or_none_gives_its_flags(tmp_path,
                                                                  context: dict) -> None:
    """A result that states no build type says nothing of the binary's."""
    _, proc = run_with_build_type(tmp_path, "Release", **context)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "--l2=warm\n", "")


@pytest.mark.parametrize(("stated", "shown"), [("Debug", "Debug"), ("Debug\nx", "Debug x"),
                                               (5, "5")])
def test_a_result_of_another_build_type_is_refused(tmp_path, stated: object,
                                                   shown: str) -> None:
    """No flag makes a Release build measure as a Debug one did: exit 3, gpubench-tools compare's
    status for measured otherwise, with the build types as gpubench-tools compare shows them."""
    result, proc = run_with_build_type(tmp_path, "Release", gpubench_build_type=stated)
    assert (proc.returncode, proc.stdout) == (3, "")
    assert proc.stderr == (
        f"gpubench-tools flags: {result}: recorded by a {shown} build "
        f"(context gpubench_build_type),"
        f" and a Release build measures otherwise: no flag makes it measure as a {shown} build "
        f"does; build gpubench as {shown}, or record {result} with the Release build\n")


def test_a_setting_no_flag_can_hold_comes_before_the_build_type(tmp_path) -> None:
    """An unusable result (exit 2) is that, whatever the build type."""
    _, proc = run_with_build_type(tmp_path, "Release", gpubench_build_type="Debug",
                                  benchmark_min_time=0.5)
    assert proc.returncode == 2 and "context 'benchmark_min_time' is not text" in proc.stderr
