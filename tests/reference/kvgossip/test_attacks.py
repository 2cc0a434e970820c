"""The attacks of the node's threat model, on two nodes with real Serf agents on loopback.

Each test attacks node `a` and checks the outcome: honest writes still propagate (within a
generous deadline: the figures are `make bench-kv`'s), memory stays near its baseline, nothing
hostile is stored, the refusals are counted and logged, and a stranger gets no session.
"""

from __future__ import annotations

import asyncio
import os
import stat
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bench.kvgossip.testbed import attacks
from bench.kvgossip.testbed.localcluster import LocalCluster, LocalNode
from swarmconf.reference.kvgossip import gossip
from swarmconf.reference.kvgossip.control import MAX_CONTROL_CONNECTIONS, ControlError
from swarmconf.reference.kvgossip.frames import read_frame
from swarmconf.reference.kvgossip.identity import Identity
from swarmconf.reference.kvgossip.limits import MAX_SESSIONS_PER_PEER, MAX_SYNCS
from swarmconf.reference.kvgossip.membership import ClusterKey, connect_member
from swarmconf.reference.kvgossip.notices import FETCH_LIMIT, NOTICE_BURST, NOTICE_RATE
from swarmconf.reference.kvgossip.reasons import NodeReason
from swarmconf.reference.kvgossip.serf_agent import AgentConfig, SerfAgent
from swarmconf.reference.kvgossip.serf_rpc import Member, SerfError, SerfRPC
from swarmconf.spec.kvgossip import messages as m
from swarmconf.spec.kvgossip.fixtures import ROOT
from swarmconf.spec.kvgossip.records import make_record

ROGUE = Identity(b"m" * 32)
"""The identity a member gone bad announces in the cluster."""
PROPAGATION_DEADLINE = 10.0
MIB = 1 << 20


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def run(
    scenario: Callable[[LocalCluster, LocalNode, LocalNode], Awaitable[None]], tmp: Path
) -> None:
    async def main() -> None:
        cluster = LocalCluster(tmp, ROOT.pk)
        try:
            async with asyncio.timeout(150):
                a, b = await cluster.add("a"), await cluster.add("b")
                await honest_write(b, a, "/honest/warm-up")
                await scenario(cluster, a, b)
        finally:
            await cluster.close()

    asyncio.run(main())


async def until(check: Callable[[], Awaitable[bool]], timeout: float = 20.0) -> None:
    async with asyncio.timeout(timeout):
        while not await check():
            await asyncio.sleep(0.05)


async def honest_write(source: LocalNode, target: LocalNode, key: str) -> None:
    """Write on `source`; fail unless `target` stores it within the deadline."""
    value = key.encode()
    await source.call(
        {"op": "put", "record": make_record(ROOT.seed, key, now_ms(), value).encode()}
    )

    async def arrived() -> bool:
        return await target.value(key) == value

    await until(arrived, PROPAGATION_DEADLINE)


async def sync_port(node: LocalNode) -> int:
    return int((await node.status())["sync_port"])


async def refused(node: LocalNode, reason: str) -> int:
    return int((await node.status())["refused_connections"].get(reason, 0))


def rss(node: LocalNode) -> int:
    assert node.process is not None
    return attacks.rss_bytes(node.process.pid)


def warnings(node: LocalNode, reason: str) -> list[str]:
    lines = (node.data_dir / "node.log").read_text().splitlines()
    return [line for line in lines if "WARNING refused sync connection from 127.0.0.1:" in line
            and f": {reason}: " in line]  # fmt: skip


def test_squatters_and_storms_do_not_starve_honest_writes(tmp_path: Path) -> None:
    async def scenario(cluster: LocalCluster, a: LocalNode, b: LocalNode) -> None:
        port = await sync_port(a)
        before = (await a.status())["sessions_ok"]
        hellos = await attacks.stranger_hellos(port, 32)
        await cluster.add_member("squatter", ROGUE)
        directory = await cluster.directory()
        timed_out = [0]
        squatters = await attacks.member_squatters(
            port, cluster.key, ROGUE, directory, 32, timed_out
        )
        idle = await attacks.idle_strangers(port, 200)
        stop = asyncio.Event()
        storm = asyncio.create_task(attacks.reconnect_storm(port, 40, stop))
        try:
            assert len(squatters) == MAX_SYNCS  # its other slots had their HELLO refused
            for i in range(3):  # honest writes both ways while the attack holds
                await honest_write(b, a, f"/honest/to-a/{i}")
                await honest_write(a, b, f"/honest/to-b/{i}")
        finally:
            stop.set()
            connects = await storm
            for held in (hellos, squatters, idle):
                attacks.close_all(held)
        assert connects > 0
        assert await attacks.stranger_replies(port, 20) == 0
        # The strangers got no session: each is a refused handshake, none reached the sessions.
        await until_refused(a, NodeReason.HANDSHAKE_FAILED, 32 + 200)
        # Past its sessions, each squatter the node answered was refused; one that gave up at
        # the handshake timeout on a loaded machine never reached the node's slots
        await until_refused(a, NodeReason.PEER_LIMIT, 32 - MAX_SESSIONS_PER_PEER - timed_out[0])
        status = await a.status()
        assert status["sessions_ok"] - before <= 20  # honest sessions only
        # Logged with the peer's address and reason, but rate-limited.
        assert 1 <= len(warnings(a, NodeReason.HANDSHAKE_FAILED)) <= 3
        assert 1 <= len(warnings(a, NodeReason.PEER_LIMIT)) <= 3
        assert await a.value("/forged/0") is None

    run(scenario, tmp_path)


async def until_refused(node: LocalNode, reason: str, count: int) -> None:
    """Wait until `node` has refused at least `count` connections for `reason`; fail with
    every count it has if it does not within the deadline."""
    try:
        await until(lambda: _at_least(node, reason, count))
    except TimeoutError:
        counts = (await node.status())["refused_connections"]
        raise AssertionError(f"not {count} refused for {reason}: {counts}") from None


async def _at_least(node: LocalNode, reason: str, count: int) -> bool:
    return await refused(node, reason) >= count


def test_a_member_can_claim_neither_another_members_id_nor_an_unknown_one(tmp_path: Path) -> None:
    async def scenario(cluster: LocalCluster, a: LocalNode, b: LocalNode) -> None:
        await cluster.add_member("rogue", ROGUE)
        directory = await cluster.directory()
        port = await sync_port(a)
        b_id = bytes.fromhex((await b.status())["node_id"])
        for claimed in (b_id, b"squatting-node-1"):  # b's id; an id no member announces
            impostor = attacks.Impostor(ROGUE.seed, claimed=claimed)
            held = await attacks.member_squatters(port, cluster.key, impostor, directory, 4)
            assert held == []
        assert await refused(a, NodeReason.NODE_ID_NOT_PROVEN) == 4
        assert await refused(a, NodeReason.UNKNOWN_NODE_ID) == 4
        assert len(warnings(a, NodeReason.NODE_ID_NOT_PROVEN)) == 1
        assert len(warnings(a, NodeReason.UNKNOWN_NODE_ID)) == 1
        # Its own id gets a session; b, whose id was claimed, still syncs both ways.
        reader, writer = await connect_member("127.0.0.1", port, cluster.key, ROGUE, directory)
        writer.write(attacks.hello_frame(ROGUE.node_id))
        assert m.decode_message(await read_frame(reader))[0] == m.HELLO
        writer.close()
        await honest_write(b, a, "/honest/after-impostors")
        await honest_write(a, b, "/honest/after-impostors-back")

    run(scenario, tmp_path)


def test_garbage_frames_and_control_floods_leave_memory_at_baseline(tmp_path: Path) -> None:
    async def scenario(cluster: LocalCluster, a: LocalNode, b: LocalNode) -> None:
        baseline = rss(a)
        peak = baseline
        await attacks.garbage_frames(await sync_port(a), 32, 4 * MIB - 1)
        peak = max(peak, rss(a))
        flood = await attacks.control_flood(a.data_dir, 100, 4 * MIB - 1)
        peak = max(peak, rss(a))
        within = await attacks.control_flood(a.data_dir, 100, 2 * MIB)  # under the frame limit
        peak = max(peak, rss(a))
        attacks.close_all(flood + within)
        assert peak < 2 * baseline, (peak, baseline)

        async def control_free() -> bool:
            try:
                control = (await a.status())["control"]
            except ControlError as exc:
                assert exc.reason == NodeReason.CONTROL_LIMIT
                return False
            assert control["refused"] >= 100 - MAX_CONTROL_CONNECTIONS
            return True

        await until(control_free)
        await honest_write(b, a, "/honest/after-floods")

        async def back_to_baseline() -> bool:
            return rss(a) < baseline + 16 * MIB

        await until(back_to_baseline)
        assert await refused(a, NodeReason.HANDSHAKE_FAILED) >= 32

    run(scenario, tmp_path)


def test_forged_change_notices_cost_a_bounded_number_of_sessions(tmp_path: Path) -> None:
    async def scenario(cluster: LocalCluster, a: LocalNode, b: LocalNode) -> None:
        a_id = bytes.fromhex((await a.status())["node_id"])
        rpc = await b.agent.connect()  # a member with the RPC token
        try:
            far = 2**62
            await attacks.forged_notices(rpc, a_id, 300, far)
            await until(lambda: _refused_records(b, "FUTURE_TIMESTAMP", 300))
            before = (await a.status())["sessions_ok"]
            await attacks.forged_notices(rpc, a_id, 300, now_ms())
            await honest_write(a, b, "/honest/after-notices")
            await until(lambda: _sessions_settled(a))
        finally:
            await rpc.close()
        sessions = (await a.status())["sessions_ok"] - before
        assert sessions <= 40, sessions  # 300 notices, paced per source and coalesced
        notices = (await b.status())["notices"]
        assert notices["received"] >= 600
        # Coalesced per writer: a fetch or two, then a session per back-off, never one each.
        assert notices.get("fetches", 0) <= FETCH_LIMIT, notices
        assert 1 <= notices.get("sessions", 0) <= 12, notices
        assert (await b.status())["keys"] == (await a.status())["keys"]

    run(scenario, tmp_path)


def test_notices_beyond_the_rate_or_naming_strangers_are_dropped_unread(tmp_path: Path) -> None:
    async def scenario(cluster: LocalCluster, a: LocalNode, b: LocalNode) -> None:
        rpc = await b.agent.connect()
        before = await b.status()
        count = 2000
        try:
            started = time.monotonic()
            for _ in range(count):  # each names a writer no member announces
                await attacks.forged_notices(rpc, os.urandom(16), 1, now_ms())
            await until(lambda: _notices_received(b, before, count))
            elapsed = time.monotonic() - started
        finally:
            await rpc.close()
        status = await b.status()
        dropped = status["notices"]["dropped"]
        assert sum(dropped.values()) == count  # not one acted on
        assert (
            dropped.get(NodeReason.NOTICE_RATE_LIMIT, 0)
            >= count - NOTICE_BURST - NOTICE_RATE * elapsed
        )
        assert dropped[NodeReason.NOTICE_UNKNOWN_WRITER] >= 1
        assert "fetches" not in status["notices"] and "sessions" not in status["notices"]
        await honest_write(a, b, "/honest/after-strangers")

    run(scenario, tmp_path)


async def _notices_received(node: LocalNode, before: dict[str, Any], count: int) -> bool:
    received = (await node.status())["notices"]["received"]
    return bool(received - before["notices"].get("received", 0) >= count)


async def _refused_records(node: LocalNode, reason: str, count: int) -> bool:
    return int((await node.status())["refused"].get(reason, 0)) >= count


async def _sessions_settled(node: LocalNode, quiet: float = 1.0) -> bool:
    """True once the node's session count has not moved for `quiet` seconds."""
    first = (await node.status())["sessions_ok"]
    await asyncio.sleep(quiet)
    return bool((await node.status())["sessions_ok"] == first)


def test_serf_is_closed_to_strangers_and_tags_are_kept(tmp_path: Path) -> None:
    async def scenario(cluster: LocalCluster, a: LocalNode, b: LocalNode) -> None:
        config = a.agent.config
        # No RPC token: no events, no tag changes.
        with pytest.raises(SerfError):
            stranger = await SerfRPC.connect(config.host, config.rpc_port)
            await stranger.tags({gossip.TAG_PORT: "1"})
        # No gossip key: a stranger's agent cannot join the cluster.
        outsider = SerfAgent(AgentConfig("outsider", key=ClusterKey.generate(),
                                         config_path=tmp_path / "outsider.json"))  # fmt: skip
        await outsider.start(rebind=True)
        try:
            rpc = await outsider.connect()
            with pytest.raises(SerfError):
                await rpc.join([config.gossip_address])
            await rpc.close()
        finally:
            await outsider.stop()
        assert {m.name for m in await _members(b)} == {"a", "b"}
        # Even a token holder who rewrites a node's sync-port tag sees it put back.
        rpc = await a.agent.connect()
        try:
            await rpc.tags({gossip.TAG_PORT: "1"})

            async def restored() -> bool:
                tags = {m.name: m.tags for m in await rpc.members()}["a"]
                return tags.get(gossip.TAG_PORT) == str(await sync_port(a))

            await until(restored)
        finally:
            await rpc.close()
        await honest_write(b, a, "/honest/after-tags")

    run(scenario, tmp_path)


async def _members(node: LocalNode) -> list[Member]:
    rpc = await node.agent.connect()
    try:
        return list(await rpc.members())
    finally:
        await rpc.close()


def test_node_files_and_socket_are_private_under_umask_000(tmp_path: Path) -> None:
    async def scenario(cluster: LocalCluster, a: LocalNode, b: LocalNode) -> None:
        for node in (a, b):
            assert stat.S_IMODE(node.data_dir.stat().st_mode) == 0o700
            for name in ("store.db", "control.sock", "serf-secrets.json", "identity.key"):
                assert stat.S_IMODE((node.data_dir / name).stat().st_mode) == 0o600, name
        assert stat.S_IMODE(cluster.key_file.stat().st_mode) == 0o600

    old = os.umask(0)
    try:
        run(scenario, tmp_path)
    finally:
        os.umask(old)
