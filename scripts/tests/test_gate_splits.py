"""The evidence tools on a real recording of many runs: a slowdown planted into a figure that
only the family facts name, and gate_splits.py's trials and its bad usage."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import H200, SCRIPTS
from gbench_builder import bad_results, load_json, scaled, with_repetitions, write_bad

from gpubench_tools.cli.compare import parse_args, rules_from
from gpubench_tools.models.comparison import compare
from gpubench_tools.reading.result_file import loads

CARD_A = H200 / "verdicts" / "splits" / "card_a.json.gz"  # eleven runs of one build on one H200
GRAPH_NODES = "launch/graph_nodes/instantiate/nodes:16"


def gate_splits(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPTS / "tests" / "gate_splits.py"),
                           *map(str, args)], capture_output=True, text=True, timeout=300)


def test_a_planted_slowdown_moves_the_figure_the_family_facts_declare() -> None:
    """us_per_node is a launch figure that only the facts name (lower is better): planted 1.5
    times slower, gpubench-tools compare sees it 1.5 times slower."""
    doc = with_repetitions(load_json(CARD_A), lambda i: i < 3)
    run = next(e["run_name"] for e in doc["benchmarks"] if e["run_name"].startswith(GRAPH_NODES))
    slowed = scaled(doc, run, 1.5)
    rules = rules_from(parse_args(["b.json", "n.json"]))
    rows = compare(loads(json.dumps(doc), Path("b")),
                   loads(json.dumps(slowed), Path("n")), rules).rows
    row = next(r for r in rows if r.name == GRAPH_NODES)
    assert row.metric.key == "us_per_node" and abs(row.ratio - 1 / 1.5) < 1e-9


def test_the_splits_report_the_gate_on_one_build_and_what_confirming_runs_keep() -> None:
    """Two trials of the gate on card A's eleven runs, then the same trials with a confirming
    run: a change stays only where the confirming runs alone show it too, so the A/A pair has no
    more verdicts than without, and plants are still caught. (One test: the first run is the
    second's reference, and xdist would make it once a worker.)"""
    proc = gate_splits(CARD_A, "--trials", 2)
    lines = proc.stdout.splitlines()
    assert lines[0].startswith(f"{CARD_A}: 11 runs; 2 trials of 5 runs against 5 others")
    a_a = next(line for line in lines if line.startswith("A/A: the gate passed "))
    planted = next(line for line in lines if line.startswith("planted: "))
    caught, total = (int(x) for x in planted.split()[1:4:2])
    assert 0 < caught <= total and total == 2 * 279  # 279 plants a trial on this suite
    kinds = [line.split(": ")[1].split() for line in lines if line.endswith(" caught")
             and line.startswith("  ") and " of " in line]
    by_kind = {line.split(": ")[0].strip() for line in lines if line.endswith(" caught")}
    assert {"copy, 1.05× slower", "launch, 1.5× slower", "saxpy, 1.05× slower"} <= by_kind
    assert sum(int(k[0]) for k in kinds) == caught and sum(int(k[2]) for k in kinds) == total
    # Eleven runs of one build do not split into SAME everywhere: exit 1, as the data has it.
    assert proc.returncode == (0 if "passed 2 of 2" in a_a and caught == total else 1)

    confirmed = gate_splits(CARD_A, "--trials", 2, "--confirm", 1).stdout
    assert ("changes confirmed by 1 more run(s) as gpubench-tools gate does"
            in confirmed.splitlines()[0])

    def count(text: str, prefix: str, field: int) -> int:
        return int(next(line for line in text.splitlines() if line.startswith(prefix))
                   .split()[field].rstrip(";"))
    assert count(confirmed, "A/A:", 8) <= count(proc.stdout, "A/A:", 8)  # verdicts not SAME
    assert count(confirmed, "planted:", 1) > 0


def test_the_splits_refuse_more_runs_than_the_recording_holds(tmp_path: Path) -> None:
    proc = gate_splits(CARD_A, "--base", 8, "--new", 8)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (f"gate_splits.py: {CARD_A} holds 11 runs: --base and --new must be "
                           "at least 1, --confirm at least 0, and the three together at most "
                           "that; --trials at least 1\n")
    assert gate_splits(CARD_A, "--base", 4, "--confirm", 3).returncode == 2  # 4 + 5 + 3 > 11
    not_recording = tmp_path / "list.json"
    not_recording.write_text("[1, 2]")
    proc = gate_splits(not_recording)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (f"gate_splits.py: {not_recording}: not gpubench output (the JSON is "
                           "a list, not an object)\n")


@pytest.mark.parametrize("content", [
    pytest.param(content, id=name) for name, content, _ in bad_results()
    if name in ("directory", "deeply nested JSON", "integer too large for a float", "NaN")])
def test_an_unusable_recording_is_one_line(tmp_path: Path, content: object) -> None:
    """The toolkit's own checks of a result file (result_file.load) guard the tool too."""
    bad = write_bad(tmp_path / "bad.json", content)
    proc = gate_splits(bad)
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith(f"gate_splits.py: {bad}: ")
