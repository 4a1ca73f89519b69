"""The CI recipe, .github/workflows/gpubench.yml: valid against GitHub's workflow schema (the
copy check-jsonschema ships, so no network is needed) and doing what docs/ci.md says it does."""

import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import SCRIPTS
# Installed from scripts/requirements.txt; a machine without it (the GPU machines) skips these.
YAML = pytest.importorskip("ruamel.yaml").YAML
pytest.importorskip("check_jsonschema")

ROOT = SCRIPTS.parent
WORKFLOW = ROOT / ".github" / "workflows" / "gpubench.yml"
DOCS = ROOT / "docs" / "ci.md"
# Two repetitions a side can never give p < 0.05 in a two-sided exact U test; four can
# (2 / C(8, 4) = 0.029).
MIN_REPETITIONS = 4


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


def test_repetitions_are_kept_for_the_u_test(job: Any) -> None:
    (run,) = [job["steps"][i]["run"] for i in steps_running(job, r"build/gpubench ")]
    options = dict(arg.split("=", 1) for arg in shlex.split(run) if "=" in arg)
    assert int(options["--benchmark_repetitions"]) >= MIN_REPETITIONS
    assert options["--benchmark_enable_random_interleaving"] == "true"
    assert options["--benchmark_out_format"] == "json"
    for step in job["steps"]:
        assert "aggregates_only" not in step.get("run", "")


def test_install_and_python_check_come_before_the_work(job: Any) -> None:
    (install,) = steps_running(job, r"^\.ci/install\s*$")
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


def test_regression_check_is_compare_py(job: Any) -> None:
    (index,) = steps_running(job, r"scripts/compare\.py")
    run = " ".join(job["steps"][index]["run"].replace("\\\n", " ").split())
    assert re.search(r'scripts/compare\.py "\$GPUBENCH_BASELINE" gpubench\.json '
                     r'--threshold="\$GPUBENCH_THRESHOLD" --markdown', run)
    assert 'exit "$status"' in run  # compare.py's exit status fails the job


def test_docs_state_the_python_requirement() -> None:
    text = DOCS.read_text(encoding="utf-8")
    assert re.search(r"Python (>=|≥) ?3\.10", text)
    assert "--benchmark_report_aggregates_only=true \\" not in text
