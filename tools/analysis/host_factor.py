#!/usr/bin/env python3
"""Does a process's host carry one level that its other launch paths could take out?

For each card of the committed separate processes of the default suite (four H200 cards, one
H100: scripts/tests/fleet_processes.py), each host-timed launch submit or throughput benchmark of
the seven API paths: its robust spread between the card's processes (1.4826 x the median absolute
deviation of log(time / the card's median)), alone and against the median of the other paths'
same benchmarks in the same process (what a reference measured in the same process, not in the
same rounds, would leave). Prints one line per card: the median and largest spread of each.

Usage, from the repository root: python3 tools/analysis/host_factor.py
"""

import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "scripts" / "tests"))

from gpubench_tools.cli.options import require_packages  # noqa: E402

require_packages("host_factor.py", "numpy", "scipy")

import numpy as np  # noqa: E402

import fleet_processes  # noqa: E402

from gpubench_tools.cli.options import OneLineArgumentParser, script_output  # noqa: E402

SCRIPT = "host_factor.py"

PATHS = ("runtime", "driver", "runtime_launchkernel", "runtime_launchkernelex",
         "driver_launchkernelex", "driver_extra", "floor")


def spread(logs: np.ndarray) -> float:
    return float(1.4826 * np.median(np.abs(logs - np.median(logs))))


def path_of(name: str) -> str | None:
    """The API path of a host-timed submit or throughput benchmark of launch/<path>/, else None."""
    parts = name.split("/")
    if len(parts) > 2 and parts[0] == "launch" and parts[1] in PATHS and (
            "submit" in parts[2] or "throughput" in parts[2]):
        return parts[1]
    return None


def card_line(model: str, number: int, card: tuple[dict, ...]) -> str:
    times = [{e["run_name"]: e["real_time"] for e in doc["benchmarks"]
              if e.get("host_timed") == 1 and e.get("real_time", 0) > 0
              and path_of(e["run_name"])} for doc in card]
    names = sorted(set.intersection(*(set(t) for t in times)))
    logs = np.log(np.array([[t[n] for n in names] for t in times]))
    logs -= np.median(logs, axis=0)
    alone, against_others = [], []
    for i, name in enumerate(names):
        others = [j for j, other in enumerate(names) if path_of(other) != path_of(name)]
        alone.append(spread(logs[:, i]))
        against_others.append(spread(logs[:, i] - np.median(logs[:, others], axis=1)))
    return (f"{model} card {number}: {len(card)} processes, {len(names)} benchmarks; spread "
            f"between processes alone: median {100 * np.median(alone):.1f}%, largest "
            f"{100 * max(alone):.1f}%; against the other paths in the same process: median "
            f"{100 * np.median(against_others):.1f}%, largest {100 * max(against_others):.1f}%")


def main(argv: list[str]) -> int:
    OneLineArgumentParser(prog=SCRIPT, description=__doc__.splitlines()[0]).parse_args(argv)
    lines = [card_line(model, number, card) for model in ("h200", "h100")
             for number, card in enumerate(fleet_processes.cards(model))]
    return script_output(SCRIPT, "\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
