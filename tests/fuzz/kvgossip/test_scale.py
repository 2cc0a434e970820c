"""The simulation at size: its fast paths change nothing, its counts and fits are right, and
what grows with the cluster does."""

import random

import pytest

from swarmconf.fuzz.kvgossip import run_case
from swarmconf.fuzz.kvgossip.node import WatchedStore
from swarmconf.fuzz.kvgossip.scale import PROFILES, build, preloaded, run, steady
from swarmconf.fuzz.kvgossip.scale_report import fit, main
from swarmconf.fuzz.kvgossip.serf import Gossip, push_pull_interval_ms, retransmit_limit
from swarmconf.spec.kvgossip.fixtures import ALICE, ROOT
from swarmconf.spec.kvgossip.grants import issue_grant, revoke_grant
from swarmconf.spec.kvgossip.records import Record
from swarmconf.spec.kvgossip.state import MemoryStore

# Campaign 11's first cases as the simulation ran them before its stores kept their hashes and
# its nodes their nearest peers: (sessions, scheduler events, settle ms, keys, violations,
# honest nodes), from commit 3a32d16.
BEFORE_FAST_PATHS = {
    0: (31, 1638, 4000, 4, 0, 3),
    1: (3, 268, 2000, 4, 0, 5),
    2: (41, 1485, 26000, 4, 0, 3),
    3: (13, 429, 5000, 3, 0, 5),
    4: (14, 538, 9000, 2, 0, 3),
    5: (2, 394, 2000, 4, 0, 5),
    6: (0, 230, 2000, 2, 0, 5),
    7: (0, 100, 2000, 2, 0, 3),
    8: (43, 2139, 4000, 3, 0, 5),
    9: (27, 1198, 2000, 3, 0, 5),
    10: (5, 322, 3000, 4, 0, 5),
    11: (2, 256, 8000, 2, 0, 5),
    12: (56, 2279, 84000, 4, 0, 3),
    13: (18, 800, 2000, 4, 0, 4),
    14: (18, 854, 2000, 2, 0, 3),
    15: (5, 331, 3000, 3, 0, 5),
    16: (6, 264, 2000, 2, 0, 3),
    17: (0, 82, 2000, 3, 0, 3),
    18: (7, 390, 2000, 3, 0, 4),
    19: (8, 409, 4000, 3, 0, 3),
}


@pytest.mark.parametrize("index", sorted(BEFORE_FAST_PATHS))
def test_the_fast_paths_give_the_same_runs_as_before(index: int) -> None:
    r = run_case(11, index)
    got = (r["sessions"], r["events"], r["settle_ms"], r["keys"], len(r["violations"]), r["nodes"])
    assert got == BEFORE_FAST_PATHS[index]


class _Checks:
    def on_put(self, node: str, old: Record | None, new: Record) -> None:
        pass

    def on_delete(self, node: str, old: Record) -> None:
        pass


def test_the_watched_store_keeps_what_the_spec_store_computes() -> None:
    rng = random.Random(5)
    records = list(preloaded(40))
    watched, plain = WatchedStore("n0", _Checks()), MemoryStore()  # type: ignore[arg-type]
    grant = issue_grant(ROOT.seed, ALICE.pk, "/**", subgrant=False, issued_at=1)
    for step in range(200):
        record = rng.choice(records)
        roll = rng.random()
        if roll < 0.6:
            watched.put(record), plain.put(record)
        elif roll < 0.9:
            watched.delete(record.key), plain.delete(record.key)
        elif step % 2:
            revocation = revoke_grant(ROOT.seed, grant, step, ROOT.pk)
            watched.add_revocation(revocation), plain.add_revocation(revocation)
        assert watched.tree_hash() == plain.tree_hash()
        assert watched.revset_hash() == plain.revset_hash()
        assert watched.sync_items() == plain.sync_items()
        for r in records[:5]:
            assert watched.get_by_entry_hash(r.entry_hash) == plain.get_by_entry_hash(r.entry_hash)


# Members sent a write twice: a relay's span is min(d, n - d) from the distance d it was
# pushed from, wider than its parent gave it when n is no power of two.
TWICE = {9: 0, 13: 2, 31: 1, 32: 0, 100: 3}


@pytest.mark.parametrize("nodes", sorted(TWICE))
def test_the_push_tree_reaches_every_member_about_once(nodes: int) -> None:
    world = build(nodes, 0, PROFILES["tree"], seed=3)
    received = {"n0": 1}
    frontier: list[tuple[str, str | None]] = [("n0", None)]
    while frontier:
        name, sender = frontier.pop()
        for peer in world.nodes[name]._push_peers(sender):
            received[peer] = received.get(peer, 0) + 1
            if received[peer] == 1:  # a known record is not relayed
                frontier.append((peer, name))
    assert set(received) == set(world.nodes)
    assert sum(count - 1 for count in received.values()) == TWICE[nodes]


def test_the_nearest_first_flood_sends_each_write_to_every_member_eight_times() -> None:
    flood, tree = run(20, profile="node"), run(20, profile="tree")
    assert flood.reached == tree.reached == 20
    assert flood.write_messages["push"] == 16.0  # 8 pushes and their 8 answers a node
    assert tree.write_messages["push"] == pytest.approx(2 * 19 / 20, abs=0.1)


def test_idle_query_traffic_grows_with_the_cluster() -> None:
    small, large = run(12, profile="sim"), run(24, profile="sim")
    assert retransmit_limit(12) == retransmit_limit(24) == 8
    # Every node relays every member's periodic query: per node, in proportion to the members.
    assert large.idle_bytes["serf-query"] == pytest.approx(2 * small.idle_bytes["serf-query"])


def test_the_writers_sweep_after_a_write_dials_every_member_that_answered() -> None:
    small, large = run(10, profile="sim"), run(40, profile="sim")
    assert small.reached == 10 and large.reached == 40
    assert large.sessions > 3 * max(small.sessions, 1)
    assert large.quiet_ms > large.max_ms  # the sessions run long after the write arrived


def test_gossip_delays_follow_the_tree() -> None:
    world = build(30, 0, PROFILES["node"], seed=2)
    names = list(world.nodes)
    delays = Gossip(random.Random(1)).delays(world.network, "n0", names)
    assert set(delays) == set(names) and delays["n0"] == 0
    assert all(delays[n] >= world.network.latency[("n0", n)] for n in names[1:4])
    assert max(delays.values()) > min(d for n, d in delays.items() if n != "n0")


def test_push_pull_interval_stretches_past_32_members() -> None:
    assert push_pull_interval_ms(32) == 30_000
    assert push_pull_interval_ms(64) == 60_000
    assert push_pull_interval_ms(1000) == 180_000


def test_fit_recovers_a_power_and_a_log_law() -> None:
    ns = [10, 100, 1000]
    power = fit(ns, [3 * n**0.5 for n in ns])
    assert power is not None and power.law == "power"
    assert (round(power.a, 6), round(power.b, 6)) == (3, 0.5)
    log = fit(ns, [2 + 5 * (i + 1) * 2.302585093 for i in range(3)])
    assert log is not None and log.law == "log" and log.b == pytest.approx(5)
    assert fit([10], [1.0]) is None and fit(ns, [0.0, 1.0, 2.0]) is None


def test_the_report_prints_a_row_a_run_and_the_fits(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--nodes", "4,9", "--profiles", "tree", "--fit"]) == 0
    out = capsys.readouterr().out
    assert "| tree | 4 | 0 |" in out and "| tree | 9 | 0 |" in out
    assert "| tree | B/node/write |" in out


def test_under_steady_writes_the_writers_sweeps_dial_every_member() -> None:
    load = steady(12, "tree", interval_ms=1000)
    assert load.writer_sweeps == 2
    assert load.writer_sessions == load.sessions == 11  # the pushes had delivered every write


def test_under_the_nodes_sizing_rules_steady_writes_start_no_sessions() -> None:
    load = steady(12, "sized", interval_ms=1000)
    assert load.writer_sweeps >= 2
    assert load.sessions == 0  # the store changed during each query: query again, dial nobody


def test_under_the_nodes_sizing_rules_idle_queries_stop_growing_past_32() -> None:
    small, large = run(32, profile="sized"), run(64, profile="sized")
    # Half as often per node at 64: each node's share of the cluster's queries stays the same.
    ratio = large.idle_bytes["serf-query"] / small.idle_bytes["serf-query"]
    assert ratio == pytest.approx(1.0, rel=0.35)
