"""Three nodes on loopback with real Serf agents: convergence, crashes, partitions, revocations."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from bench.kvgossip.testbed.localcluster import LocalCluster, LocalNode
from swarmconf.reference.kvgossip.control import ControlError, watch
from swarmconf.reference.kvgossip.store import SqliteStore
from swarmconf.spec.kvgossip.fixtures import ALICE, BOB, ROOT
from swarmconf.spec.kvgossip.grants import Grant, issue_grant, revoke_grant
from swarmconf.spec.kvgossip.records import Record, make_record
from swarmconf.spec.kvgossip.state import Outcome, receive_record

GRANT_ALICE = issue_grant(ROOT.seed, ALICE.pk, "/r/**", subgrant=False, issued_at=1)
GRANT_BOB = issue_grant(ROOT.seed, BOB.pk, "/r/**", subgrant=False, issued_at=1)


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def run(scenario: Callable[[LocalCluster], Awaitable[None]], tmp: Path, **kwargs: float) -> None:
    async def main() -> None:
        cluster = LocalCluster(tmp, ROOT.pk, **kwargs)
        try:
            async with asyncio.timeout(150):
                await scenario(cluster)
        finally:
            await cluster.close()

    asyncio.run(main())


async def put(node: LocalNode, record: Record) -> dict[str, object]:
    return await node.call({"op": "put", "record": record.encode()})


def write(seed: bytes, key: str, value: bytes | None, *chain: Grant, ts: int = 0) -> Record:
    return make_record(seed, key, ts or now_ms(), value, chain)


async def until(check: Callable[[], Awaitable[bool]], timeout: float = 30.0) -> None:
    async with asyncio.timeout(timeout):
        while not await check():
            await asyncio.sleep(0.05)


async def values(nodes: list[LocalNode], key: str) -> list[bytes | None]:
    return [await n.value(key) for n in nodes]


def test_writes_on_every_node_converge(tmp_path: Path) -> None:
    async def scenario(cluster: LocalCluster) -> None:
        a, b, c = [await cluster.add(n) for n in "abc"]
        changes = await watch(c.data_dir, "/r/from")
        await put(a, write(ROOT.seed, "/r/from-a", b"1"))
        await put(b, write(ALICE.seed, "/r/from-b", b"2", GRANT_ALICE))
        await put(c, write(ROOT.seed, "/r/gone", b"3"))
        await put(c, write(ROOT.seed, "/r/gone", None))
        # Periodic resyncs are off: change events and the sweeps they cause do all the work.
        await cluster.converged(timeout=20)
        for key, value in (("/r/from-a", b"1"), ("/r/from-b", b"2"), ("/r/gone", None)):
            assert await values([a, b, c], key) == [value] * 3
        statuses = await cluster.statuses()
        assert all(s["keys"] == 3 for s in statuses.values())
        assert [p["name"] for p in statuses["a"]["peers"]] in (["b", "c"], ["c", "b"])
        assert {p["sync"] for p in statuses["c"]["peers"]} == {
            f"127.0.0.1:{statuses[n]['sync_port']}" for n in "ab"
        }
        seen = []
        async for change in changes:
            seen.append((change["key"], change["state"], change["value"]))
            if len(seen) == 2:
                break
        changes.close()
        assert sorted(seen) == [("/r/from-a", "set", b"1"), ("/r/from-b", "set", b"2")]

    run(scenario, tmp_path, resync_interval=600)


def seed(node: LocalNode, total: int) -> None:
    """Fill a stopped node's store with `total` records signed by alice (one-grant chains)."""
    seeded = SqliteStore(node.data_dir / "store.db", ROOT.pk, synchronous="OFF")
    with seeded.transaction():
        for i in range(total):
            record = write(ALICE.seed, f"/r/bulk/{i}", b"x" * 100, GRANT_ALICE, ts=1000 + i)
            assert receive_record(seeded, record.encode(), ROOT.pk, now_ms()).outcome is (
                Outcome.ACCEPTED
            )
    seeded.close()


def test_fresh_node_catches_up_10000_keys(tmp_path: Path) -> None:
    total = 10_000

    async def scenario(cluster: LocalCluster) -> None:
        a = await cluster.add("a", start=False)
        seed(a, total)
        await a.agent.start()
        await a.start()
        c = await cluster.add("c")
        await cluster.converged(timeout=120)
        statuses = [await a.status(), await c.status()]
        assert statuses[1]["keys"] == total
        # No session broke the protocol on either side.
        failed = [reason for s in statuses for reason in s["sessions_failed"]]
        assert not [r for r in failed if r.startswith("SESSION_")], statuses

    run(scenario, tmp_path)


def test_node_killed_mid_reconciliation_restarts_intact_and_converges(tmp_path: Path) -> None:
    total = 12_000

    async def scenario(cluster: LocalCluster) -> None:
        a = await cluster.add("a", start=False)
        seed(a, total)
        await a.agent.start()
        await a.start()
        c = await cluster.add("c")
        # Kill c while its first session is pulling the keys, batch by batch.
        await until(lambda: _count_at_least(c, 1), timeout=60)
        await c.kill()
        store = SqliteStore(c.data_dir / "store.db", ROOT.pk)
        assert store.integrity_ok()
        kept = store.entries_newest_first()
        assert 1 <= len(kept) < total, "the kill should land while c is still pulling"
        assert store.count() == len(kept) and store.sync_items() == sorted(
            (ts, eh) for _, ts, eh in kept
        )
        for key, _, _ in kept[:200]:
            record = store.get(key)  # decodes and verifies the signature
            assert record is not None and record.chain == (GRANT_ALICE.encode(),)
        store.close()
        await c.start()
        await cluster.converged(timeout=120)
        assert (await c.status())["keys"] == total

    run(scenario, tmp_path)


def test_a_lost_push_is_made_good_by_the_change_event_and_a_fetch(tmp_path: Path) -> None:
    async def scenario(cluster: LocalCluster) -> None:
        a = await cluster.add("a", push=False)
        b = await cluster.add("b")
        await cluster.converged()
        sessions = [(await n.status())["sessions_ok"] for n in (a, b)]
        changes = await watch(b.data_dir, "/r/lost")
        await put(a, write(ALICE.seed, "/r/lost", b"v", GRANT_ALICE))
        async with asyncio.timeout(30):
            async for change in changes:
                assert change["value"] == b"v"
                break
        changes.close()
        # b fetched the one key: no session ran on either side.
        assert [(await n.status())["sessions_ok"] for n in (a, b)] == sessions

    run(scenario, tmp_path, resync_interval=600)


async def _count_at_least(node: LocalNode, count: int) -> bool:
    return int((await node.status())["keys"]) >= count


def test_partitioned_node_heals(tmp_path: Path) -> None:
    async def scenario(cluster: LocalCluster) -> None:
        a, b, c = [await cluster.add(n) for n in "abc"]
        await put(a, write(ROOT.seed, "/r/shared", b"before"))
        await cluster.converged()
        await c.agent.kill()  # c keeps running and writing, cut off from the others
        await until(lambda: _pushes_to(a, ["b"]))  # Serf saw c fail: a stops pushing to it
        await put(a, write(ROOT.seed, "/r/only-a", b"a"))
        await put(a, write(ROOT.seed, "/r/shared", b"from-a"))
        await asyncio.sleep(0.05)
        await put(c, write(ROOT.seed, "/r/shared", b"from-c-newer"))
        await put(c, write(ROOT.seed, "/r/only-c", b"c"))
        await until(lambda: _has(b, "/r/only-a"))
        await asyncio.sleep(1.0)
        assert await c.value("/r/only-a") is None and await b.value("/r/only-c") is None
        await c.agent.start()  # same name and ports: the node reconnects and rejoins
        await cluster.converged(timeout=40)
        assert await values([a, b, c], "/r/shared") == [b"from-c-newer"] * 3
        assert await values([a, b, c], "/r/only-a") == [b"a"] * 3
        assert await values([a, b, c], "/r/only-c") == [b"c"] * 3

    run(scenario, tmp_path, resync_interval=2)


async def _pushes_to(node: LocalNode, names: list[str]) -> bool:
    return list((await node.status())["push_peers"]) == names


async def _has(node: LocalNode, key: str) -> bool:
    return await node.value(key) is not None


def test_revocation_spreads_purges_and_the_newest_valid_version_wins(tmp_path: Path) -> None:
    async def scenario(cluster: LocalCluster) -> None:
        a, b, c = [await cluster.add(n) for n in "abc"]
        await put(a, write(ALICE.seed, "/r/k", b"v1-alice", GRANT_ALICE))
        await cluster.converged()
        await c.agent.kill()
        await until(lambda: _pushes_to(a, ["b"]))
        newer = write(BOB.seed, "/r/k", b"v2-bob", GRANT_BOB)
        await put(a, newer)
        await put(a, write(BOB.seed, "/r/only-bob", b"bob", GRANT_BOB))
        await cluster.converged(["a", "b"])
        assert await values([a, b], "/r/k") == [b"v2-bob"] * 2
        revocation = revoke_grant(ROOT.seed, GRANT_BOB, now_ms(), ROOT.pk)
        reply = await a.call({"op": "revoke", "revocation": revocation.encode()})
        assert reply["purged"] == ["/r/k", "/r/only-bob"]
        # The kvg-rv event carries it to b, which purges too.
        await until(lambda: _revocations(b, 1))
        assert await values([a, b], "/r/k") == [None, None]
        assert await c.value("/r/k") == b"v1-alice"
        await c.agent.start()
        await cluster.converged(timeout=40)
        # Alice's older version, still valid, is the newest survivor and wins everywhere.
        assert await values([a, b, c], "/r/k") == [b"v1-alice"] * 3
        assert await values([a, b, c], "/r/only-bob") == [None] * 3
        assert all(s["revocations"] == 1 for s in (await cluster.statuses()).values())
        with pytest.raises(ControlError) as refused:
            await put(b, newer)
        assert refused.value.reason == "REVOKED"

    run(scenario, tmp_path, resync_interval=2)


async def _revocations(node: LocalNode, count: int) -> bool:
    return int((await node.status())["revocations"]) >= count
