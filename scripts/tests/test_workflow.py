"""The CI recipe, .github/workflows/gpubench.yml: valid against GitHub's workflow schema (the
copy check-jsonschema ships, so no network is needed) and doing what docs/ci.md says it does."""

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import SCRIPTS
from fake_gpubench import install
from gbench_builder import copy_run, document, saxpy_run, write_json

# Installed from scripts/requirements-test.txt; a machine without it (the GPU machines) skips these.
YAML = pytest.importorskip("ruamel.yaml").YAML
pytest.importorskip("check_jsonschema")

ROOT = SCRIPTS.parent
WORKFLOW = ROOT / ".github" / "workflows" / "gpubench.yml"
DOCS = ROOT / "docs" / "ci.md"
# Against a baseline of 15 runs, two candidate runs can never give p < 0.01 in a two-sided exact
# U test (2 / C(17, 2) = 0.015); three can (2 / C(18, 3) = 0.0025).
MIN_REPETITIONS = 3


def check_schema(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema",
                           "vendor.github-workflows", str(path)],
                          capture_output=True, text=True, timeout=120)


def read(path: Path = WORKFLOW) -> Any:
    return YAML().load(path)  # YAML 1.2: the key `on` stays a string


@pytest.fixture(scope="module")
def workflow() -> Any:
    return read()


@pytest.fixture(scope="module")
def job(workflow: Any) -> Any:
    (job,) = workflow["jobs"].values()
    return job


def steps_running(job: Any, pattern: str) -> list[int]:
    return [i for i, step in enumerate(job["steps"]) if re.search(pattern, step.get("run", ""))]


def test_valid_against_githubs_schema() -> None:
    proc = check_schema(WORKFLOW)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def without_runs_on(doc: Any) -> None:
    del doc["jobs"]["benchmark"]["runs-on"]


def misspelt_event(doc: Any) -> None:
    doc["on"]["pusj"] = doc["on"].pop("push")


def concurrency_list(doc: Any) -> None:
    doc["jobs"]["benchmark"]["concurrency"] = ["gpubench"]


def step_without_action(doc: Any) -> None:
    doc["jobs"]["benchmark"]["steps"].append({"name": "does nothing"})


def timeout_in_words(doc: Any) -> None:
    doc["jobs"]["benchmark"]["timeout-minutes"] = "an hour"


@pytest.mark.parametrize("breakage", [without_runs_on, misspelt_event, concurrency_list,
                                      step_without_action, timeout_in_words])
def test_schema_check_rejects_a_broken_copy(tmp_path: Path,
                                            breakage: Callable[[Any], None]) -> None:
    yaml = YAML()
    doc = yaml.load(WORKFLOW)
    breakage(doc)
    broken = tmp_path / "gpubench.yml"
    with broken.open("w") as f:
        yaml.dump(doc, f)
    proc = check_schema(broken)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Schema validation errors" in proc.stdout + proc.stderr


def test_triggers_and_no_fork_code_on_the_gpu_machine(workflow: Any, job: Any) -> None:
    triggers = workflow["on"]
    assert {"push", "workflow_dispatch"} <= set(triggers)
    # pull_request_target runs with the repository's token and secrets: never for this job.
    assert "pull_request_target" not in triggers
    if "pull_request" in triggers:
        guard = " ".join(str(job.get("if", "")).split())
        same_repository = "github.event.pull_request.head.repo.full_name == github.repository"
        assert same_repository in guard or "environment" in job


def test_one_benchmark_at_a_time_per_runner(job: Any) -> None:
    runner_labels = [label for label in job["runs-on"] if "${{" in label]
    assert runner_labels, "runs-on names the GPU runner through the matrix"
    expression = re.search(r"\$\{\{\s*(\S+)\s*\}\}", runner_labels[0]).group(1)
    assert expression in job["concurrency"]["group"]
    assert job["concurrency"]["cancel-in-progress"] is False


def test_each_run_is_a_process_of_its_own(workflow: Any, job: Any) -> None:
    """The gate records through gpubench-tools gate, which runs gpubench through
    gpubench-tools record."""
    assert int(workflow["env"]["GPUBENCH_RUNS"]) >= MIN_REPETITIONS
    assert int(workflow["env"]["GPUBENCH_CONFIRM_RUNS"]) >= MIN_REPETITIONS
    for step in job["steps"]:
        assert "aggregates_only" not in step.get("run", "")
        # gpubench runs only through gpubench-tools gate
        assert not re.search(r"^\s*build/gpubench", step.get("run", ""), re.MULTILINE)
        assert "gpubench-tools record" not in step.get("run", "")


def test_build_is_the_baselines(job: Any) -> None:
    """The gate builds as docs/ci.md records the baseline: Release, native device code."""
    (index,) = steps_running(job, r"cmake -S")
    assert "-DCMAKE_BUILD_TYPE=Release -DGPUBENCH_NATIVE=ON" in job["steps"][index]["run"]
    assert "-DCMAKE_BUILD_TYPE=Release -DGPUBENCH_NATIVE=ON" in DOCS.read_text(encoding="utf-8")


def test_build_makes_gpubench_alone(job: Any) -> None:
    """gpubench alone builds in 28 s on the H200, with the tests in 49 s
    (results/h200/verdicts/gate_aa/planted/wall.txt, results/h200/loader_bounds/wall.txt), and
    the gate does not run the tests."""
    (index,) = steps_running(job, r"cmake --build")
    assert re.search(r"^\s*cmake --build build --target gpubench\s*$", job["steps"][index]["run"],
                     re.MULTILINE)


def test_install_and_python_check_come_before_the_work(job: Any) -> None:
    (install,) = steps_running(job, r"^\.ci/install --toolkit\s*$")
    (check,) = steps_running(job, r"sys\.version_info")
    first_work = min(steps_running(job, r"cmake |build/gpubench|scripts/"))
    assert install < check < first_work


def python_check(job: Any) -> str:
    (index,) = steps_running(job, r"sys\.version_info")
    command = shlex.split(job["steps"][index]["run"])
    assert command[:2] == ["python3", "-c"] and len(command) == 3
    return command[2]


@pytest.mark.parametrize("version,ok", [((3, 9, 18), False), ((3, 10, 0), True),
                                        ((3, 13, 1), True)])
def test_python_check_is_one_clear_line(job: Any, version: tuple[int, int, int],
                                        ok: bool) -> None:
    text = ".".join(map(str, version))
    pretend = (f"import sys; sys.version_info = {version!r}; "
               f"sys.version = '{text} (pretended)'\n")
    proc = subprocess.run([sys.executable, "-c", pretend + python_check(job)],
                          capture_output=True, text=True, timeout=60)
    if ok:
        assert proc.returncode == 0 and proc.stderr == ""
    else:
        assert proc.returncode == 1
        assert proc.stderr.count("\n") == 1 and "3.10" in proc.stderr and text in proc.stderr


def compare_step(job: Any) -> dict:
    (index,) = steps_running(job, r"scripts/gpubench-tools gate")
    return job["steps"][index]


def test_regression_check_is_ci_gate(job: Any) -> None:
    step = compare_step(job)
    run = " ".join(step["run"].replace("\\\n", " ").split())
    assert re.search(r'scripts/gpubench-tools gate build/gpubench "\$GPUBENCH_BASELINE" '
                     r'gpubench\.json \$REPORT --markdown', run)
    assert 'exit "$status"' in run  # the gate's exit status fails the job
    assert "${{ matrix.gpu }}/ci_baseline.json" in job["env"]["GPUBENCH_BASELINE"]


def test_a_person_can_ask_for_a_report(workflow: Any, job: Any) -> None:
    report = workflow["on"]["workflow_dispatch"]["inputs"]["report"]
    assert report["type"] == "boolean" and report["default"] is False
    assert compare_step(job)["env"]["REPORT"] == "${{ inputs.report && '--report' || '' }}"


def run_compare_step(workflow: Any, job: Any, tmp_path: Path, new_context: dict, report: str
                     ) -> tuple[int, str]:
    """The gate step's shell, as the runner runs it with the workflow's env, with a stand-in
    for build/gpubench whose runs, first and confirming, are all 1.25 times slower than the
    baseline."""
    # 15 runs, as a baseline is recorded: 5 runs against 5 can give no p < 0.01 to runs with a
    # tie or two, and the gate stops before its first run.
    base = document(copy_run("HtoD", "pinned", "async", 1 << 20,
                             [round(49.93 + 0.01 * i, 2) for i in range(15)]), merged_runs=15)
    runs = [document(copy_run("HtoD", "pinned", "async", 1 << 20, [gbps]), **new_context)
            for gbps in [40.0, 40.1, 39.9, 40.05, 39.95]]
    write_json(tmp_path / "base.json", base)
    install(tmp_path / "build", runs)
    (tmp_path / "scripts").symlink_to(SCRIPTS)
    summary = tmp_path / "summary.md"
    proc = subprocess.run(["bash", "-e", "-c", compare_step(job)["run"]], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, **workflow["env"], "GPUBENCH_BASELINE": "base.json",
                               "REPORT": report,
                               "GITHUB_STEP_SUMMARY": str(summary)})
    return proc.returncode, summary.read_text(encoding="utf-8")


def test_summary_leads_with_the_verdict(workflow: Any, job: Any, tmp_path: Path) -> None:
    status, summary = run_compare_step(workflow, job, tmp_path, {}, "")
    assert status == 1
    lines = summary.splitlines()
    assert lines[0] == "## gpubench comparison"
    assert lines[2].startswith("FAIL: 1 of 1 benchmark(s) regressed")
    assert lines[4].startswith("SLOWER (1)")
    slower = "\n".join(lines[5:10])
    assert "copy/HtoD/pinned/async/1048576" in slower and "1.25× slower" in slower
    # A regression in every run, the confirming ones too; the summary says they were taken.
    confirming = workflow["env"]["GPUBENCH_CONFIRM_RUNS"]
    assert lines[-1].startswith(f"Confirmed by {confirming} more runs of the suite, each change "
                                "judged again")


@pytest.mark.parametrize(("report", "status"), [("", 3), ("--report", 0)])
def test_another_driver_is_named_in_the_first_line(workflow: Any, job: Any, tmp_path: Path,
                                                   report: str, status: int) -> None:
    got, summary = run_compare_step(workflow, job, tmp_path, {"driver_version": "590.10"},
                                    report)
    assert got == status
    if report:
        assert "Comparison report, not a regression check (driver_version differ)" in summary
    else:
        assert summary.startswith(
            "gpubench-tools compare: no regression check: driver_version differ")


def exports_step(job: Any) -> dict:
    (index,) = steps_running(job, r"scripts/gpubench-tools export")
    return job["steps"][index]


def test_a_recording_of_one_direction_exports_that_direction(job: Any, tmp_path: Path) -> None:
    """A baseline recorded with --benchmark_filter=saxpy gates saxpy alone, whose figures are
    all GB/s: the step writes the exports the recording has figures for, and passes."""
    write_json(tmp_path / "gpubench.json",
               document(saxpy_run("flushed", 1 << 20, [100.0, 101.0, 102.0], 4000.0),
                        merged_runs=3))
    (tmp_path / "scripts").symlink_to(SCRIPTS)
    proc = subprocess.run(["bash", "-e", "-c", exports_step(job)["run"]], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    written = sorted(p.name for p in (tmp_path / "export").iterdir())
    assert written == ["bencher.json", "github_bigger.json"]


def test_docs_state_the_python_requirement() -> None:
    text = DOCS.read_text(encoding="utf-8")
    assert re.search(r"Python (>=|≥) ?3\.10", text)
    assert "--benchmark_report_aggregates_only=true \\" not in text
