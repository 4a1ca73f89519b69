"""Every command README.md and docs/*.md show in ```sh blocks works as pasted.

Each command of a ```sh block (a line, with `\\` continuations joined) is either run here, from
the repository's root against the committed results, or skipped by a rule that names why:

- run: `scripts/gpubench-tools SUBCOMMAND ...` (but `record` and `gate`, which run gpubench), and
  `build/gpubench` with only `--version`, `--describe` or `--benchmark_list_tests` (and a filter
  or sizes), which need no GPU; those skip where no gpubench is built (GPUBENCH_BINARY names
  the binary, as the C++ tests are given it; else build/gpubench);
- skipped: anything that needs a GPU, a build, a cluster, a service or an install (RULES); a
  command that reads a file only a skipped command before it in its block makes (`compare
  base.json gpubench.json` after `record build/gpubench gpubench.json`); and a command shown
  again word for word, which runs where it is shown first.

A command no rule knows fails: add a rule rather than let it go untested. What a command writes
goes to a temporary folder: `-o PATH`, `--output PATH`, `--changed-filter PATH` and `> PATH`
are rewritten to the same relative path there (with the folders the repository has on the way),
so nothing in the checkout changes. A command exits 0 unless its line ends with `# exits N`.

`python3 scripts/tests/test_docs_commands.py` prints every command with what the test does.
"""

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

import pytest
from conftest import gpubench_binary
from forked_command import run_tool

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
README_MAX_LINES = 200
# Each command runs in a few seconds; a documentation that shows many more should show fewer.
MAX_COMMANDS_RUN = 30
TIMEOUT_S = 300

TOOLKIT = "scripts/gpubench-tools"
GPUBENCH = "build/gpubench"
# Toolkit subcommands that start gpubench, so need a GPU.
RUNS_GPUBENCH = {"record": "runs gpubench (a GPU)", "gate": "runs gpubench (a GPU)"}
# gpubench flags that print something in place of a run, and need no GPU; and what may join them.
NO_GPU_FLAGS = {"--version", "--describe", "--benchmark_list_tests"}
NO_GPU_COMPANIONS = ("--benchmark_filter=", "--sizes=", "--latency-sizes=",
                     "--latency-link-sizes=")
# Programs (the first word, after VAR=value assignments) that are never run here, and why.
RULES = {
    ".ci/install": "installs packages",
    "pip": "installs packages",
    "cmake": "configures or builds the C++ (minutes)",
    "ctest": "runs the C++ and GPU tests",
    "check-jsonschema": "a test tool (.ci/install --tests)",
    "tools/sanitize.sh": "runs compute-sanitizer on a GPU",
    "tools/gpu_session.sh": "a session on a GPU machine",
    "sbatch": "needs a Slurm cluster",
    "srun": "needs a Slurm cluster",
    "scontrol": "needs a Slurm cluster",
    "kubectl": "needs a Kubernetes cluster",
    "wait": "waits for the background commands of its block",
    "kill": "stops the background commands of its block",
    "docker": "needs Docker and a registry",
    "bencher": "needs a Bencher project and token",
    "nvidia-smi": "needs a GPU",
}
RULE_PREFIXES = {"scripts/tests/": "a test helper, run by the test suite"}
OPERATORS = {"&&", "||", ";", "|", "&"}
REDIRECTS = {">", ">>"}
OUTPUT_OPTIONS = {"-o", "--output", "--output-dir", "--changed-filter"}
EXPECTED_STATUS = re.compile(r"#\s*exits\s+(\d+)\s*$")
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True)
class DocCommand:
    source: str  # file:line of the command's first line
    text: str  # as shown, continuations joined
    words: tuple[str, ...]  # shell words and operators
    expected_status: int
    skip_reason: str | None  # None: run it
    unknown: bool = False  # no rule knows its program


def sh_blocks(text: str) -> list[tuple[int, list[str]]]:
    """The ```sh blocks of a markdown text: each block's first line number and its lines."""
    blocks: list[tuple[int, list[str]]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```sh":
            start, body = i + 2, []
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            blocks.append((start, body))
        i += 1
    return blocks


def block_commands(start: int, lines: list[str]) -> list[tuple[int, str]]:
    """The commands of a block with their line numbers: blank and comment lines left out,
    lines ending in a backslash joined to the next."""
    commands: list[tuple[int, str]] = []
    pending: list[str] = []
    first = start
    for number, line in enumerate(lines, start):
        if not pending:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            first = number
        if line.rstrip().endswith("\\"):
            pending.append(line.rstrip()[:-1])
            continue
        pending.append(line)
        commands.append((first, " ".join(part.strip() for part in pending)))
        pending = []
    if pending:
        commands.append((first, " ".join(part.strip() for part in pending)))
    return commands


def shell_words(text: str) -> tuple[str, ...]:
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|<>")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    return tuple(lexer)


def segments(words: tuple[str, ...]) -> list[list[str]]:
    """The simple commands of a line, split at `&&`, `||`, `;`, `|` and `&`."""
    parts: list[list[str]] = [[]]
    for word in words:
        if word in OPERATORS:
            parts.append([])
        else:
            parts[-1].append(word)
    return [p for p in parts if p]


def program_and_args(segment: list[str]) -> tuple[str, list[str]]:
    """The program of a simple command and its arguments, leading VAR=value assignments and
    redirections left out."""
    rest = list(segment)
    while rest and ASSIGNMENT.match(rest[0]):
        rest.pop(0)
    args: list[str] = []
    skip_next = False
    for word in rest[1:]:
        if skip_next:
            skip_next = False
        elif word in REDIRECTS or word == "<":
            skip_next = True
        else:
            args.append(word)
    return (rest[0] if rest else ""), args


# Commands another test runs on the same committed files and checks more closely, by their
# arguments before `-o`: the gallery of the committed results is written by
# test_derived_results (into a scratch folder, not gallery.html) and held to the committed pages
# there.
RUN_ELSEWHERE = {
    ("gallery", "results"):
        "test_derived_results writes the gallery of results/ and checks its pages",
    ("report", "--format=html", "results/h200/verdicts/aa_1.json.gz",
     "results/h200/verdicts/aa_2.json.gz", "results/h200/speed/suite_after.json"):
        "test_html_report's three full runs make this page and check it",
}


def segment_skip_reason(segment: list[str]) -> tuple[str | None, bool]:
    """Why a simple command is not run here (None: it is run), and whether no rule knows it."""
    program, args = program_and_args(segment)
    if program == TOOLKIT:
        subcommand = next((a for a in args if not a.startswith("-")), "")
        if args[:-2] and args[-2] == "-o" and tuple(args[:-2]) in RUN_ELSEWHERE:
            return RUN_ELSEWHERE[tuple(args[:-2])], False
        return RUNS_GPUBENCH.get(subcommand), False
    if program == GPUBENCH:
        if not NO_GPU_FLAGS & set(args) or not all(
                a in NO_GPU_FLAGS or a.startswith(NO_GPU_COMPANIONS) for a in args):
            return "needs a GPU", False
        if not gpubench_binary().is_file():
            return f"no {gpubench_binary()} here: build it (README's quick start)", False
        return None, False
    if program == "python3" and args[:2] == ["-m", "pytest"]:
        return "the test suite itself", False
    if program in RULES:
        return RULES[program], False
    for prefix, reason in RULE_PREFIXES.items():
        if program.startswith(prefix):
            return reason, False
    return f"no rule knows {program!r}", True


def made_by(path: str, outputs: dict[str, str]) -> str | None:
    """The skipped command before that names `path` (or a folder above it), where the
    repository holds no such file."""
    if path.startswith("-") or not ("/" in path or "." in path) or (ROOT / path).exists():
        return None
    candidate = PurePosixPath(path.rstrip("/"))
    for made, command in outputs.items():
        made_path = PurePosixPath(made.rstrip("/"))
        if str(made_path) == ".":
            continue
        if candidate == made_path or made_path in candidate.parents:
            return command
    return None


def classify(source: str, text: str, outputs: dict[str, str]) -> DocCommand:
    """A command and what the test does with it. `outputs` holds the words of the skipped
    commands before it in its block (each with its command), and takes this one's if skipped."""
    status = EXPECTED_STATUS.search(text)
    expected = int(status.group(1)) if status else 0
    try:
        words = shell_words(text)
    except ValueError as error:
        return DocCommand(source, text, (), expected, f"cannot be parsed: {error}", True)
    reason, unknown = None, False
    for segment in segments(words):
        reason, unknown = segment_skip_reason(segment)
        if reason:
            break
        program, args = program_and_args(segment)
        if program == TOOLKIT:  # its subcommand is no path
            args = args[1:]
        for arg in args:
            maker = made_by(arg.split("=", 1)[-1] if arg.startswith("--") else arg, outputs)
            if maker:
                reason = f"reads {arg}, which a command skipped before it makes ({maker})"
                break
        if reason:
            break
    if reason and not unknown:
        for word in words:
            value = word.split("=", 1)[-1] if word.startswith("--") else word
            if value and not value.startswith("-") and value not in OPERATORS | REDIRECTS:
                outputs.setdefault(value, text if len(text) <= 60 else text[:57] + "...")
    return DocCommand(source, text, words, expected, reason, unknown)


def documented_commands() -> list[DocCommand]:
    commands: list[DocCommand] = []
    for path in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        name = path.relative_to(ROOT).as_posix()
        for start, lines in sh_blocks(path.read_text(encoding="utf-8")):
            outputs: dict[str, str] = {}
            for number, text in block_commands(start, lines):
                commands.append(classify(f"{name}:{number}", text, outputs))
    first: dict[tuple[str, ...], str] = {}
    for i, command in enumerate(commands):
        if command.skip_reason is None:
            if command.words in first:
                commands[i] = replace(
                    command, skip_reason=f"the same command runs as {first[command.words]}")
            else:
                first[command.words] = command.source
    return commands


def in_tmp(path: str, tmp: Path) -> str:
    """`path` as the same relative path under `tmp`, with the folders on its way that the
    repository has (as pasted in a checkout, the output's folder exists or does not)."""
    relative = PurePosixPath(path.lstrip("/"))
    target = tmp / relative
    for folder in reversed(relative.parents):
        if str(folder) != "." and (ROOT / folder).is_dir():
            (tmp / folder).mkdir(parents=True, exist_ok=True)
    return str(target)


def rewritten(words: tuple[str, ...], tmp: Path) -> list[str]:
    """The command's words with every output under `tmp` and the built gpubench named."""
    out: list[str] = []
    redirect_next = False
    for word in words:
        if redirect_next:
            out.append(word if word.startswith("/dev/") else in_tmp(word, tmp))
            redirect_next = False
            continue
        if out and out[-1] in OUTPUT_OPTIONS | REDIRECTS:
            out.append(word if word.startswith("/dev/") else in_tmp(word, tmp))
            continue
        option, sep, value = word.partition("=")
        if sep and option in OUTPUT_OPTIONS:
            out.append(f"{option}={in_tmp(value, tmp)}")
            continue
        if word == GPUBENCH:
            word = str(gpubench_binary())
        out.append(word)
    return out


def shell_text(words: list[str]) -> str:
    return " ".join(w if w in OPERATORS | REDIRECTS else shlex.quote(w) for w in words)


COMMANDS = documented_commands()


def test_the_readme_is_at_most_200_lines() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md is {lines} lines; the reference goes to docs/"


def test_the_docs_show_commands_and_run_few() -> None:
    run = [c for c in COMMANDS if c.skip_reason is None]
    assert any(c.text.startswith(TOOLKIT) for c in run), "no toolkit command found to run"
    assert len(run) <= MAX_COMMANDS_RUN, (
        f"{len(run)} commands to run; show at most {MAX_COMMANDS_RUN} runnable ones")


@pytest.mark.parametrize("command", COMMANDS, ids=[c.source for c in COMMANDS])
def test_documented_command(command: DocCommand, tmp_path: Path) -> None:
    assert not command.unknown, (
        f"{command.source}: {command.text}\n{command.skip_reason}: run it here or add a rule")
    if command.skip_reason:
        pytest.skip(f"{command.skip_reason}: {command.text}")
    words = rewritten(command.words, tmp_path)
    plain = not OPERATORS & set(words) and not REDIRECTS & set(words)
    if plain and words[0] == TOOLKIT:
        proc = run_tool(words[1:], cwd=ROOT, timeout=TIMEOUT_S)
    else:
        proc = subprocess.run(words if plain else ["bash", "-c", shell_text(words)], cwd=ROOT,
                              capture_output=True, text=True, timeout=TIMEOUT_S,
                              env={**os.environ, "MPLBACKEND": "Agg"})
    assert proc.returncode == command.expected_status, (
        f"{command.source}: {command.text}\nexit {proc.returncode}, the docs say "
        f"{command.expected_status}\n{proc.stderr[-2000:]}")


if __name__ == "__main__":
    for c in COMMANDS:
        what = ("UNKNOWN" if c.unknown else f"skip ({c.skip_reason})" if c.skip_reason
                else f"run, exit {c.expected_status}")
        print(f"{c.source}: {what}\n    {c.text}")
    ran = sum(c.skip_reason is None for c in COMMANDS)
    print(f"{ran} run, {len(COMMANDS) - ran} skipped", file=sys.stderr)
