"""deploy/container/Dockerfile builds from any checkout: `COPY . .` brings the checkout's own
build/ (the README builds there), whose CMakeCache.txt names the checkout's source path, and
CMake refuses to configure a source tree with a cache made for another ("The source ... does not
match the source ... used to generate cache")."""

import re
import shlex
from pathlib import PurePosixPath

from conftest import SCRIPTS

DOCKERFILE = SCRIPTS.parent / "deploy" / "container" / "Dockerfile"


def instructions(text: str) -> list[tuple[str, str]]:
    """The Dockerfile's instructions, continuation lines joined, comments dropped."""
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n", " ", "\n".join(lines))
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1])
            for line in joined.splitlines() if line.strip()]


def build_directories(text: str) -> list[PurePosixPath]:
    """Every cmake -B directory of the RUN instructions, resolved against WORKDIR."""
    workdir = PurePosixPath("/")
    found = []
    for keyword, argument in instructions(text):
        if keyword == "WORKDIR":
            workdir = workdir / argument.strip()
        elif keyword == "RUN":
            words = shlex.split(argument)
            found += [workdir / words[i + 1] for i, word in enumerate(words[:-1]) if word == "-B"]
    return found


def test_the_build_directory_is_outside_the_copied_checkout() -> None:
    text = DOCKERFILE.read_text()
    workdir = PurePosixPath([arg for key, arg in instructions(text) if key == "WORKDIR"][-1])
    directories = build_directories(text)
    assert directories, "no cmake -B in the Dockerfile"
    for directory in directories:
        assert not directory.is_relative_to(workdir), (
            f"cmake -B {directory} lies in {workdir}, where COPY . . puts the checkout's build/")
