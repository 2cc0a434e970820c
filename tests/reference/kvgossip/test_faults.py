"""Real faults on real nodes in network namespaces (runs as root), and the checker that judges
their history."""

from __future__ import annotations

import asyncio
import itertools
import random
import subprocess
from pathlib import Path

from bench.kvgossip.testbed.fault_history import (
    FORGED,
    GRANTED,
    READ,
    REVOKE,
    WRITE,
    Final,
    History,
    Op,
    Sample,
    violations,
)
from bench.kvgossip.testbed.fault_net import Mesh
from bench.kvgossip.testbed.fault_run import RunSettings, run
from bench.kvgossip.testbed.fault_schedule import MAX_SKEW, PARTITIONS, draw
from swarmconf.spec.kvgossip.fixtures import ROOT

HASHES = ("t", "r")


def op(
    kind: str, key: str, value: bytes | None, start: float, node: int = 0, outcome: str = "ok"
) -> Op:
    return Op(0, kind, node, key, value, start, start + 0.1, outcome)


def clean_history() -> History:
    return History(
        [
            op(WRITE, "/f/0/0/0", b"a", 1.0),
            op(GRANTED, "/g/0/0", b"g", 1.5),
            op(FORGED, "/g/0/forged-0", b"x", 1.6, outcome="fail"),
            op(READ, "/g/0/0", b"g", 2.0, node=1),  # before n1 knows of the revocation
            op(REVOKE, "/g/0/", None, 3.0),
            op(WRITE, "/f/0/1/0", b"b", 3.5, outcome="unknown"),  # may be lost
            op(READ, "/g/0/0", None, 4.0),
        ],
        [Sample(1, 2.5, 0), Sample(1, 3.5, 1)],
    )


def finals(values: dict[str, bytes | None], *, nodes: int = 2) -> dict[int, Final]:
    return {node: Final(dict(values), HASHES) for node in range(nodes)}


def test_the_checker_passes_a_clean_history_and_names_every_broken_rule() -> None:
    history = clean_history()
    assert violations(history, finals({"/f/0/0/0": b"a"})) == []
    # An acknowledged write missing on one node (rule 1).
    lost = finals({"/f/0/0/0": b"a"})
    lost[1] = Final({}, HASHES)
    assert violations(history, lost) == ["acknowledged write /f/0/0/0 missing on n1"]
    # A forged write acknowledged, a value read that nobody wrote, a revoked value read
    # after the node had the revocation, one left at the end (rule 2).
    history.ops += [
        op(FORGED, "/g/0/forged-1", b"y", 5.0, outcome="ok"),
        op(READ, "/f/0/0/0", b"not written", 5.0),
        op(READ, "/g/0/0", b"g", 3.6, node=1),
    ]
    found = violations(history, finals({"/f/0/0/0": b"a", "/g/0/0": b"g"}, nodes=1))
    assert found == [
        "forged write /g/0/forged-1 acknowledged on n0",
        "n0 returned /f/0/0/0=b'not written', which no client wrote",
        "n1 returned /g/0/0 after revoking /g/0/",
        "n0 still holds /g/0/0, whose grant was revoked",
    ]
    # Different hashes at the end (rule 3).
    split = finals({"/f/0/0/0": b"a"})
    split[1] = Final({"/f/0/0/0": b"a"}, ("t2", "r"))
    assert violations(clean_history(), split) == [
        "the nodes end on different tree or revocation-set hashes"
    ]


def test_schedules_repeat_from_their_seed_and_keep_clocks_within_the_allowed_skew() -> None:
    first = draw(random.Random(7), 5, 60)
    assert first == draw(random.Random(7), 5, 60)
    assert {f.kind for f in first} == {"majority", "bridge", "isolate", "pause", "crash", "skew"}
    for fault in first:
        assert abs(fault.skew) <= MAX_SKEW
        if fault.kind == "majority":
            assert len(fault.nodes) == 2  # a minority of 5
        if fault.kind == "bridge":
            bridge, *side = fault.nodes
            assert bridge not in side and 1 <= len(side) <= 3
    assert all(a.start + a.duration < b.start for a, b in itertools.pairwise(first))


def namespaces() -> str:
    return subprocess.run(
        ["ip", "netns", "list"], capture_output=True, text=True, check=True
    ).stdout


def test_a_mesh_cuts_exactly_the_links_between_sides_and_leaves_nothing_behind() -> None:
    mesh = Mesh(4)
    mesh.create()
    try:
        mesh.partition([0], [2, 3])  # node 1 bridges the two sides
        assert mesh.down == {frozenset(p) for p in ((0, 2), (0, 3))}
        routes = subprocess.run(
            ["ip", "-n", mesh.namespace(0), "route"], capture_output=True, text=True, check=True
        ).stdout
        assert mesh.address(1) in routes and mesh.address(2) not in routes
        mesh.heal()
        routes = subprocess.run(
            ["ip", "-n", mesh.namespace(0), "route"], capture_output=True, text=True, check=True
        ).stdout
        assert all(mesh.address(i) in routes for i in (1, 2, 3)) and not mesh.down
    finally:
        mesh.destroy()
    assert mesh.tag not in namespaces()


def test_a_short_fault_schedule_loses_no_acknowledged_write(tmp_path: Path) -> None:
    """Bridge partition, pause, crash and skew on three nodes, writers on every side."""
    settings = RunSettings(size=3, schedules=1, length=14, seed=11, bound=60)
    before = set(namespaces().split())
    results = asyncio.run(asyncio.wait_for(run(tmp_path, ROOT.pk, settings), 240))
    [result] = results
    kinds = {applied.fault.kind for applied in result.faults}
    assert {"pause", "crash", "skew"} <= kinds and kinds & set(PARTITIONS)
    assert result.findings == []
    assert result.converged is not None
    assert result.acknowledged > 50 and result.forged_refused > 10 and result.reads > 10
    assert not {n for n in set(namespaces().split()) - before if n.startswith("kvf")}
