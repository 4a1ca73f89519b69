"""The toolkit's shape: layers that import only downwards, small modules, one command whose
subcommands answer --help before the heavy packages load, imports that change nothing, and a
package pip installs."""

import ast
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from conftest import SCRIPTS, TOOLS, command

from gpubench_tools.cli.main import SUBCOMMANDS

PACKAGE = SCRIPTS / "gpubench_tools"
# Each layer and the layers it may import, bottom up (scripts/README.md).
LAYERS = {
    "reading": {"reading"},
    "writing": {"reading", "writing"},
    "models": {"reading", "writing", "models"},
    "renderers": {"reading", "writing", "models", "renderers"},
    "runs": {"reading", "writing", "models", "renderers", "runs"},
    "cli": {"reading", "writing", "models", "renderers", "runs", "cli"},
}
MAX_MODULE_LINES = 500
HEAVY = ("numpy", "scipy", "matplotlib")


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def imported_layers(path: Path) -> set[str]:
    layers = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                 else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
        for name in names:
            parts = name.split(".")
            if parts[0] == "gpubench_tools" and len(parts) > 1:
                layers.add(parts[1])
            if isinstance(node, ast.ImportFrom) and name == "gpubench_tools":
                layers.update(a.name for a in node.names)
    return layers


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_module_imports_only_its_own_layer_and_those_below(path: Path) -> None:
    parts = path.relative_to(PACKAGE).parts
    if len(parts) == 1:  # __init__.py, __main__.py: the command's entry
        return
    allowed = LAYERS[parts[0]]
    assert imported_layers(path) <= allowed, f"{path} imports {imported_layers(path) - allowed}"


def test_no_module_outside_the_command_line_imports_it() -> None:
    importers = [p for p in modules() if "cli" in imported_layers(p)
                 and p.relative_to(PACKAGE).parts[0] != "cli"
                 and p.name != "__main__.py"]
    assert importers == []


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_passes_the_line_limit(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_MODULE_LINES, f"{path}: {lines} lines"


def test_the_command_lists_every_subcommand() -> None:
    done = subprocess.run([sys.executable, str(TOOLS), "--help"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == ""
    listed = [line.split()[0] for line in done.stdout.splitlines() if line.startswith("  ")]
    assert listed == list(SUBCOMMANDS)


def test_an_unknown_subcommand_is_one_line() -> None:
    done = subprocess.run([sys.executable, str(TOOLS), "compair"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("gpubench-tools: no subcommand 'compair'")
    assert done.stderr.count("\n") == 1


HELP_PROBE = """
import sys
from gpubench_tools.cli.main import main
try:
    status = main([sys.argv[1], "--help"])
except SystemExit as done:
    status = done.code
print(status, *(name for name in {heavy!r} if name in sys.modules))
"""


@pytest.mark.parametrize("subcommand", list(SUBCOMMANDS))
def test_help_answers_before_the_heavy_packages_load(subcommand: str) -> None:
    """matplotlib and scipy take most of a start (0.7 s and 1 s here): --help needs neither."""
    done = subprocess.run([sys.executable, "-c", HELP_PROBE.format(heavy=HEAVY[1:]),
                           subcommand], capture_output=True, text=True, timeout=60,
                          cwd=SCRIPTS, env=dict(os.environ, PYTHONPATH=str(SCRIPTS)))
    status, *loaded = done.stdout.splitlines()[-1].split()
    assert status in ("0", "None") and loaded == [], done.stdout + done.stderr
    assert done.stdout.startswith(f"usage: gpubench-tools {subcommand}"), done.stdout


IMPORT_PROBE = """
import importlib, pkgutil, signal, sys
import gpubench_tools
before = ({stops}, sys.excepthook, sys.unraisablehook, sys.stdout)
for module in pkgutil.walk_packages(gpubench_tools.__path__, "gpubench_tools."):
    if module.name != "gpubench_tools.__main__":
        importlib.import_module(module.name)
after = ({stops}, sys.excepthook, sys.unraisablehook, sys.stdout)
print(before == after)
"""


def test_importing_every_module_changes_nothing_in_the_process() -> None:
    stops = "[signal.getsignal(n) for n in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)]"
    done = subprocess.run([sys.executable, "-c", IMPORT_PROBE.format(stops=stops)],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(SCRIPTS)))
    assert done.stdout == "True\n", done.stdout + done.stderr


def test_pip_installs_the_same_command(tmp_path: Path) -> None:
    """`pip install ./scripts` into a fresh virtualenv (its packages from this Python's, so no
    network is needed) gives gpubench-tools, which runs from the installed copy. The package is
    built from a copy of scripts/: setuptools writes build/ and *.egg-info beside its source."""
    source = tmp_path / "scripts"
    shutil.copytree(SCRIPTS, source, ignore=shutil.ignore_patterns(
        "tests", "__pycache__", ".hypothesis", ".ruff_cache", "build", "*.egg-info"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, system_site_packages=True, with_pip=True)
    python = env_dir / "bin" / "python3"
    builders = subprocess.run([str(python), "-c", "import setuptools, wheel"],
                              capture_output=True, text=True, timeout=60)
    if builders.returncode != 0:
        pytest.skip("no setuptools and wheel here to build the package without a network "
                    "(.ci/install --tests installs them)")
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps",
                           "--no-build-isolation", "--no-index", str(source)],
                          capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, TMPDIR=str(tmp_path),
                                   PIP_CACHE_DIR=str(tmp_path / "cache")))
    assert done.returncode == 0, done.stderr
    installed = env_dir / "bin" / "gpubench-tools"
    listed = subprocess.run([str(installed), "--help"], capture_output=True, text=True,
                            timeout=60, cwd=tmp_path)
    assert listed.returncode == 0 and "compare" in listed.stdout
    where = subprocess.run([str(python), "-c",
                            "import gpubench_tools; print(gpubench_tools.__file__)"],
                           capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert str(env_dir) in where.stdout, where.stdout


def test_the_clone_runs_the_command_with_nothing_installed() -> None:
    done = subprocess.run([*command("compare"), "--help"], capture_output=True, text=True,
                          timeout=60, cwd="/")
    assert done.returncode == 0 and done.stdout.startswith("usage: gpubench-tools compare")


def requirement_lines(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text().splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def test_the_package_states_the_requirements_files() -> None:
    """pyproject.toml's dependencies and test extra are requirements.txt and
    requirements-test.txt, which .ci/install reads: pip install ./scripts[test] and the install
    script give one set of packages."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11 and later
    project = tomllib.loads((SCRIPTS / "pyproject.toml").read_text())["project"]
    assert sorted(project["dependencies"]) == sorted(requirement_lines(SCRIPTS /
                                                                       "requirements.txt"))
    assert sorted(project["optional-dependencies"]["test"]) == sorted(
        requirement_lines(SCRIPTS / "requirements-test.txt"))
