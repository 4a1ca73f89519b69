"""gpubench-tools fleet on the nodes' peer runs: each pair of GPUs judged against its like, the GPU
or link the slow pairs blame named by its own index, PCI bus id and UUID, and the matrix of its
node's pairs. Fleets of nodes of 8 GPUs built from the real peer copies of two H200s
(fleet_builder.build_peer_fleet), each GPU's own result beside them."""

import json
import re
from pathlib import Path

import fleet_builder as fb
import pytest

from gpubench_tools.cli.fleet import main

GPUS = 8


def write_nodes(directory: Path, nodes: int, seed: int = 0) -> list[dict]:
    """`nodes` nodes of GPUS GPUs: each GPU's result and record, and each node's peer run in
    peer/ with its record; the peer runs, for a test to plant on and write again."""
    fleet = fb.on_nodes(fb.build_fleet(nodes * GPUS, seed), GPUS)
    fb.write_fleet(fleet, directory)
    fb.write_done(fleet, directory)
    peers = fb.build_peer_fleet(nodes, GPUS, seed)
    fb.write_peer_fleet(peers, directory)
    return peers


def run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args] + ["--fail-on-outlier"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def section(out: str, title: str) -> str:
    return next(part for part in re.split(r"\n== ", out) if part.startswith(title))


def verdicts(out: str) -> list[list[str]]:
    """The verdict lines, each as its cells (split on two spaces or more)."""
    lines = section(out, "Verdicts").splitlines()[3:]
    return [re.split(r"\s{2,}", line) for line in lines if line.strip()]


def matrix(out: str, host: str) -> dict[tuple[int, int], str]:
    """The cells of a node's matrix in the peer section, by (source, destination)."""
    lines = section(out, "Peer copies").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{host}: each pair"))
    cells = {}
    for line in lines[start + 3:start + 3 + GPUS]:
        source, *row = line.split()
        cells.update({(int(source), destination): cell for destination, cell in enumerate(row)})
    return cells


def slow_cells(out: str, host: str) -> set[tuple[int, int]]:
    return {pair for pair, cell in matrix(out, host).items() if cell.endswith("*")}


@pytest.mark.parametrize("nodes, seed", [(1, 0), (4, 0), (4, 1), (16, 2)])
def test_healthy_nodes_blame_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     nodes: int, seed: int) -> None:
    """Real peer copies, nothing planted: no pair is slow, no node has a matrix, exit 0."""
    write_nodes(tmp_path, nodes, seed)
    code, out, err = run(capsys, tmp_path)
    assert (code, err) == (0, ""), out
    assert out.startswith(f"gpubench-tools fleet: 0 GPU(s) need attention; {nodes * GPUS} GPU "
                          f"result(s), 1 group(s), {nodes} node(s)' peer runs.")
    peer = section(out, "Peer copies")
    assert f"0 GPU(s), link(s) or node(s) blamed on 0 node(s) of {nodes}" in peer
    assert "each pair's speed" not in peer
    assert re.search(rf"\n1 +NVIDIA H200 .* NVLink 4\.0 x18 through NVSwitch +{nodes * 56} +"
                     rf"{nodes} +6 +0\n", peer), peer


@pytest.mark.parametrize("nodes, gpu", [(1, 6), (4, 6), (4, 0), (4, 7)])
def test_a_gpu_slow_on_every_pair_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           nodes: int, gpu: int) -> None:
    """GPU `gpu` of the last node 10% slower on each of its 14 pairs, either way: its verdict
    names it by its own index, PCI bus id and UUID, not the node's GPU 0, and its matrix marks
    the pairs xto`gpu` and `gpu`tox alone."""
    peers = write_nodes(tmp_path, nodes)
    node = nodes - 1
    fb.plant_slow_gpu(peers[node], gpu, 0.9)
    fb.write_peer_fleet(peers, tmp_path)
    code, out, err = run(capsys, tmp_path)
    assert (code, err) == (1, ""), out
    host, uuid = f"node{node:02d}", fb.uuid_of(node * GPUS + gpu)
    assert verdicts(out) == [[host, str(gpu), fb.bus_of(gpu), uuid,
                              "its NVLinks: peer copies slower than their group on 14 of 14 "
                              "pair(s)", verdicts(out)[0][5],
                              "check `nvidia-smi nvlink -s`; drain it at the next maintenance "
                              "to reseat it"]], out
    assert re.fullmatch(r"0\.(89\d|90\d) of its group's median \(peer/../(read|write|bidir)/"
                        rf"({gpu}to\d|\dto{gpu})/1073741824\)", verdicts(out)[0][5])
    assert slow_cells(out, host) == {p for p in fb_pairs() if gpu in p}
    assert out.rstrip().endswith("1 GPU(s) need attention.")


def fb_pairs() -> list[tuple[int, int]]:
    return [(s, d) for s in range(GPUS) for d in range(GPUS) if s != d]


def test_a_slow_link_names_both_ends(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The link of GPUs 2 and 5 of node01 10% slower both ways: one verdict names the link by
    both its GPUs, none names a GPU alone, and its matrix marks 2to5 and 5to2 alone."""
    peers = write_nodes(tmp_path, 4)
    fb.plant_slow_link(peers[1], (2, 5), 0.9)
    fb.write_peer_fleet(peers, tmp_path)
    code, out, err = run(capsys, tmp_path)
    assert (code, err) == (1, ""), out
    [line] = verdicts(out)
    assert line[:5] == ["node01", "2, 5", f"{fb.bus_of(2)}, {fb.bus_of(5)}",
                        f"{fb.uuid_of(10)}, {fb.uuid_of(13)}",
                        "the link of GPUs 2 and 5: peer copies slower than their group on 2 of 2 "
                        "pair(s)"]
    assert line[6] == ("check `nvidia-smi nvlink -s` on both; drain them at the next "
                       "maintenance to reseat them")
    assert slow_cells(out, "node01") == {(2, 5), (5, 2)}
    assert re.search(r"\nnode01 +link +2, 5 .* 2 of 2: 2to5, 5to2 ", section(out, "Peer copies"))
    assert out.startswith("gpubench-tools fleet: 2 GPU(s) need attention;")


def test_a_node_slow_throughout_is_named_as_a_node(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Every pair of node02 10% slower: no GPU or link stands out, the node is named."""
    peers = write_nodes(tmp_path, 4)
    fb.scale_bandwidth(peers[2], lambda name: name.startswith("peer/"), 0.9)
    fb.write_peer_fleet(peers, tmp_path)
    code, out, _ = run(capsys, tmp_path)
    assert code == 1
    [line] = verdicts(out)
    assert line[:4] == ["node02", "all 8", "-", "-"]
    assert line[4] == ("NVLink across the node: peer copies slower than their group on 56 of 56 "
                       "pair(s)")
    assert len(slow_cells(out, "node02")) == 56


def test_a_node_of_two_gpus_names_the_link(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """In nodes of two GPUs a GPU cannot be told from its link: both are named, as the link."""
    peers = fb.build_peer_fleet(4, 2)
    fb.plant_slow_gpu(peers[3], 1, 0.9)
    fb.write_peer_fleet(peers, tmp_path)
    code, out, _ = run(capsys, tmp_path)
    assert code == 1, out
    assert [line[:4] for line in verdicts(out)] == [
        ["node03", "0, 1", f"{fb.bus_of(0)}, {fb.bus_of(1)}", f"{fb.uuid_of(6)}, {fb.uuid_of(7)}"]]


def damage_truncated(path: Path) -> None:
    path.write_text(path.read_text()[:1000])


def damage_absent(path: Path) -> None:
    path.unlink()


@pytest.mark.parametrize("damage, status, detail", [
    (damage_truncated, "damaged", "invalid JSON"),
    (damage_absent, "missing", "no result: a run over 8 GPUs"),
], ids=["truncated", "absent"])
def test_a_damaged_or_absent_peer_run_is_named_and_the_rest_judged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], damage, status: str,
        detail: str) -> None:
    """node01's peer result cut short, or gone with its record saying done: a row names the node's
    peer run, and node03's slow GPU 6 is still found."""
    peers = write_nodes(tmp_path, 4)
    fb.plant_slow_gpu(peers[3], 6, 0.9)
    fb.write_peer_fleet(peers, tmp_path)
    damage(tmp_path / "peer" / "node01.json")
    code, out, err = run(capsys, tmp_path)
    assert code == 1, out
    rows = [line for line in section(out, "Runs that did not finish").splitlines()
            if "node01" in line]
    assert len(rows) == 1 and rows[0].split()[:4] == [status, "node01", "peer", "run"], out
    assert detail in rows[0]
    assert err == (f"gpubench-tools fleet: skipped {tmp_path / 'peer' / 'node01.json'}: "
                   f"{rows[0].split('  ')[-2].strip()}\n" if status == "damaged" else ""), err
    assert [line[:5] for line in verdicts(out)] == [
        ["node01", "all 8", "-", "-", f"peer run {status}"], verdicts(out)[1][:5]]
    assert verdicts(out)[1][:2] == ["node03", "6"]
    assert "on 1 node(s) of 3 with a peer run" in section(out, "Peer copies")
    assert out.startswith("gpubench-tools fleet: 9 GPU(s) need attention;")


def without_devices(doc: dict) -> None:
    for key in [k for k in doc["context"] if re.fullmatch(r"device_[0-9]+", k)]:
        del doc["context"][key]


def rename(doc: dict, old: str, new: str) -> None:
    for entry in doc["benchmarks"]:
        entry["name"] = entry["run_name"] = entry["name"].replace(old, new)


HOSTILE = {
    "no device keys": (without_devices, "its context names no GPU by index (device_<N>"),
    "a device key missing": (lambda doc: doc["context"].pop("device_7"),
                             "names GPU 7, which its context does not describe (device_7)"),
    "an index out of range": (lambda doc: rename(doc, "/1to2/", "/9to2/"),
                              "names GPU 9, which its context does not describe (device_9)"),
    "a GPU to itself": (lambda doc: rename(doc, "/1to2/", "/2to2/"), "copies from a GPU to itself"),
    "a name not of the grammar": (lambda doc: rename(doc, "/1to2/", "/xto2/"),
                                  "is neither a copy between two GPUs (<s>to<d>) nor a pattern"),
    "a device not described": (lambda doc: doc["context"].update(device_3="NVIDIA H200"),
                               "context device_3 is not 'model, UUID, PCI bus id': NVIDIA H200"),
    "more GPUs than gpubench measures": (lambda doc: doc["context"].update(
        {f"device_{i}": f"NVIDIA H200, {fb.uuid_of(1000 + i)}, {fb.bus_of(0)}"
         for i in range(8, 65)}), "its context names 65 GPUs, more than the 64"),
    "two indices one GPU": (lambda doc: doc["context"].update(
        device_3=doc["context"]["device_2"].replace(fb.bus_of(2), fb.bus_of(3))),
        "context device_2 and device_3 name one GPU"),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_peer_run_not_of_its_form_is_a_damaged_row(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str],
                                                     name: str) -> None:
    """A peer result whose context or names are not a peer run's is a damaged row of its node's
    peer run and one `skipped` line on stderr, never a traceback; the other nodes are judged."""
    hurt, reason = HOSTILE[name]
    peers = write_nodes(tmp_path, 4)
    hurt(peers[1])
    fb.plant_slow_gpu(peers[3], 6, 0.9)
    fb.write_peer_fleet(peers, tmp_path)
    code, out, err = run(capsys, tmp_path)
    assert code == 1, out
    [row] = [line for line in section(out, "Runs that did not finish").splitlines()
             if "node01" in line]
    assert row.split()[:4] == ["damaged", "node01", "peer", "run"] and reason in row, row
    assert err.startswith(f"gpubench-tools fleet: skipped {tmp_path / 'peer' / 'node01.json'}: "
                          "not a peer run over a node's GPUs: ") and reason in err
    assert err.count("\n") == 1
    assert ["node03", "6"] in [line[:2] for line in verdicts(out)]


def test_the_matrix_in_markdown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--markdown: the faults and the node's matrix are markdown tables."""
    peers = write_nodes(tmp_path, 4)
    fb.plant_slow_gpu(peers[0], 3, 0.9)
    fb.write_peer_fleet(peers, tmp_path)
    code, out, _ = run(capsys, tmp_path, "--markdown")
    assert code == 1
    peer = out.split("\n### Peer copies")[1].split("\n### ")[0]
    assert "\n| node00 | GPU | 3 | " in peer
    assert "\n| src\\dst | 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 |\n" in peer, peer
    assert re.search(r"\n\| 3 \| 0\.(89\d|90\d)&#42; \| 0\.", peer), peer


def test_a_stale_peer_run_is_not_judged(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A peer result an earlier job left (its context's slurm_job_id) beside the newest job's is
    stale: listed, and its slow GPU not judged."""
    peers = write_nodes(tmp_path, 4)
    peers[2]["context"]["slurm_job_id"] = "0"
    fb.plant_slow_gpu(peers[2], 6, 0.9)
    (tmp_path / "peer" / "node02.json").write_text(json.dumps(peers[2]))
    (tmp_path / "peer" / "node02.status").unlink()
    code, out, _ = run(capsys, tmp_path)
    assert code == 1
    [row] = [line for line in section(out, "Runs that did not finish").splitlines()
             if "node02" in line]
    assert row.split()[:4] == ["stale", "node02", "peer", "run"]
    assert "job 0 (newest here: 1): its peer result" in row
    assert "on 0 node(s) of 3 with a peer run" in section(out, "Peer copies")


def test_a_link_unlike_the_fleets_is_apart(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """The link of GPUs 2 and 5 of node01 described with 17 NVLinks where every other pair has
    18: its two pairs are a group too small to compare, named as the link, no group to compare
    with, at the rank of a GPU with none."""
    peers = write_nodes(tmp_path, 4)
    for pair in ("2to5", "5to2"):
        peers[1]["context"][f"peer_{pair}"] = peers[1]["context"][f"peer_{pair}"].replace(
            "x18", "x17")
    fb.write_peer_fleet(peers, tmp_path)
    code, out, _ = run(capsys, tmp_path)
    assert code == 1, out
    [line] = verdicts(out)
    assert line == ["node01", "2, 5", f"{fb.bus_of(2)}, {fb.bus_of(5)}",
                        f"{fb.uuid_of(10)}, {fb.uuid_of(13)}",
                        "the link of GPUs 2 and 5: 2 pair(s) with no group to compare with",
                        "link access 1, atomics 1, rank 0, NVLink 4.0 x17 through NVSwitch",
                        "compare them with their like; where their link is unlike the others', "
                        "check `nvidia-smi nvlink -s`"]
    cells = matrix(out, "node01")
    assert {pair for pair, cell in cells.items() if cell == "~"} == {(2, 5), (5, 2)}
    assert not slow_cells(out, "node01")
