"""Forged records, escalated grants, bad frames and garbage payloads are refused harmlessly."""

from __future__ import annotations

import asyncio
import contextlib
import struct
import time
from pathlib import Path
from typing import Any

import pytest

from bench.kvgossip.testbed.localcluster import LocalCluster, LocalNode
from swarmconf.reference.kvgossip import gossip
from swarmconf.reference.kvgossip.control import SOCKET_NAME, ControlError
from swarmconf.reference.kvgossip.frames import FrameError, read_frame, write_frame
from swarmconf.reference.kvgossip.identity import Identity
from swarmconf.reference.kvgossip.limits import MAX_SESSIONS_PER_PEER
from swarmconf.reference.kvgossip.membership import connect_member
from swarmconf.reference.kvgossip.reasons import NodeReason
from swarmconf.reference.kvgossip.wire import SealedReader, SealedWriter
from swarmconf.spec.kvgossip import messages as m
from swarmconf.spec.kvgossip import recon
from swarmconf.spec.kvgossip.encoding import encode
from swarmconf.spec.kvgossip.fixtures import ALICE, MALLORY, ROOT
from swarmconf.spec.kvgossip.grants import issue_grant
from swarmconf.spec.kvgossip.records import Record, make_record

# Alice may sub-grant /r/**; her grant to Mallory claims all keys, but the chain only
# authorises keys every grant on it matches.
ALICE_SUB = issue_grant(ROOT.seed, ALICE.pk, "/r/**", subgrant=True, issued_at=1)
ROGUE = Identity(b"m" * 32)
"""The identity a member gone bad announces in the cluster."""
MALLORY_ALL = issue_grant(ALICE.seed, MALLORY.pk, "/**", subgrant=False, issued_at=1)


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def forged() -> Record:
    """Alice's valid record with its value swapped after signing."""
    good = make_record(ALICE.seed, "/r/forged", now_ms(), b"honest", [ALICE_SUB])
    return Record(
        good.key, good.ts, good.tombstone, good.value_hash, good.signer, good.body,
        good.signature, b"forged", good.chain,
    )  # fmt: skip


def escalated() -> Record:
    return make_record(MALLORY.seed, "/z/escalated", now_ms(), b"x", [ALICE_SUB, MALLORY_ALL])


async def member(node: LocalNode, cluster: LocalCluster) -> tuple[SealedReader, SealedWriter]:
    """A sync connection to `node` past the handshake: a member gone bad (see `add_member`)."""
    port = (await node.status())["sync_port"]
    return await connect_member("127.0.0.1", port, cluster.key, ROGUE, await cluster.directory())


async def offer(
    node: LocalNode, cluster: LocalCluster, records: list[Record]
) -> list[tuple[str, str]]:
    """Play the initiator of a sync session by hand and send the records in one RECORDS batch;
    return each (outcome, reason) of the RESULTS."""
    status = await node.status()
    reader, writer = await member(node, cluster)
    revset = bytes.fromhex(status["revset_hash"])

    async def send(*fields: object) -> list[Any]:
        await write_frame(writer, m.message(*fields))  # type: ignore[arg-type]
        return m.decode_message(await read_frame(reader, idle_timeout=5))

    assert (await send(m.HELLO, 2, ROGUE.node_id, revset, b"\x00" * 32, 0))[0] == m.HELLO
    items = sorted(r.lww_key for r in records)
    assert (await send(m.RECON, recon.initiate(items)))[0] == m.RECON
    _, outcomes, reasons, _, _ = await send(m.RECORDS, [r.encode() for r in records])
    writer.close()
    return list(zip(outcomes, reasons, strict=True))


async def push(
    node: LocalNode, cluster: LocalCluster, records: list[Record]
) -> list[tuple[str, str]]:
    """PUSH the records outside a session; each (outcome, reason) of the RESULTS."""
    reader, writer = await member(node, cluster)
    await write_frame(writer, m.message(m.PUSH, [r.encode() for r in records]))
    _, outcomes, reasons, _, _ = m.decode_message(await read_frame(reader, idle_timeout=5))
    writer.close()
    return list(zip(outcomes, reasons, strict=True))


async def raw(node: LocalNode, cluster: LocalCluster, data: bytes) -> bytes:
    """Send raw bytes to the sync port after the handshake (one sealed message); return the
    first frame that comes back, or b"" if the node ends the connection cleanly without one."""
    reader, writer = await member(node, cluster)
    writer.write(data)
    await writer.drain()
    try:
        return await read_frame(reader, idle_timeout=10)
    except FrameError as exc:
        assert exc.reason == NodeReason.CONNECTION_CLOSED
        return b""
    finally:
        writer.close()


async def failures(node: LocalNode, reason: str) -> int:
    status = await node.status()
    return int(status["sessions_failed"].get(reason, 0))


def test_hostile_input_is_refused_and_harms_nothing(tmp_path: Path) -> None:
    async def scenario(cluster: LocalCluster) -> None:
        a, b = await cluster.add("a"), await cluster.add("b")
        await cluster.add_member("rogue", ROGUE)
        await a.call(
            {"op": "put", "record": make_record(ROOT.seed, "/r/keep", now_ms(), b"1").encode()}
        )
        await cluster.converged()
        before = await a.status()

        # A forged record and an escalated grant, offered in a sync session.
        refusals = [("rejected", "VALUE_HASH_MISMATCH"), ("rejected", "UNAUTHORIZED")]
        assert await offer(a, cluster, [forged(), escalated()]) == refusals
        # And pushed outside a session.
        assert await push(a, cluster, [forged(), escalated()]) == refusals
        # The same two through the control API.
        for record, reason in ((forged(), "VALUE_HASH_MISMATCH"), (escalated(), "UNAUTHORIZED")):
            with pytest.raises(ControlError) as refused:
                await a.call({"op": "put", "record": record.encode()})
            assert refused.value.reason == reason

        # An oversize frame is refused from its length prefix; a malformed one on decoding.
        assert await raw(a, cluster, struct.pack(">I", 0xFFFFFFFF)) == b""
        assert await raw(a, cluster, struct.pack(">I", 5) + b"\xc1junk") == b""
        assert await raw(a, cluster, b"\x00\x00") == b""
        async with asyncio.timeout(10):
            while await failures(a, "SESSION_FRAME_TOO_LARGE") < 1 or (
                await failures(a, "SESSION_BAD_MESSAGE") < 1
            ):
                await asyncio.sleep(0.05)

        # A member holding its share of session slots gets no more.
        idle = [await member(a, cluster) for _ in range(MAX_SESSIONS_PER_PEER)]
        reader, writer = await member(a, cluster)
        with pytest.raises(FrameError):  # ended without a frame (cleanly, or reset)
            await read_frame(reader, idle_timeout=10)
        writer.close()
        async with asyncio.timeout(10):
            while (await a.status())["refused_connections"].get(NodeReason.PEER_LIMIT, 0) < 1:
                await asyncio.sleep(0.05)
        for _, writer in idle:
            writer.close()

        # Garbage Serf payloads: a change event, a revocation event and a state query.
        rpc = await b.agent.connect()
        await rpc.event(gossip.CHANGE_EVENT, b"\xc1garbage")
        await rpc.event(gossip.REVOCATION_EVENT, b"not a revocation")
        replies = await rpc.query(gossip.STATE_QUERY, b"\x93\x01", timeout=0.5)
        assert [r async for r in replies if r.kind == "response"] == []
        await rpc.close()

        # Garbage on the control socket.
        reader, writer = await asyncio.open_unix_connection(str(a.data_dir / SOCKET_NAME))
        bad_requests = [
            {"op": "put", "record": 10**12},
            {"op": "get", "key": 5},
            {"op": "list", "prefix": b"/"},
            {"op": "revoke"},
            {"op": "explode"},
            {"no": "op"},
            [1, 2],
        ]
        for request in [b"\xc1", *(encode(r) for r in bad_requests)]:
            await write_frame(writer, request)
            assert b"CONTROL_BAD_REQUEST" in await read_frame(reader)
        writer.close()

        async def garbage_refused() -> bool:  # the payloads reach a through Serf's gossip
            return int((await a.status())["refused"].get("MALFORMED_ENCODING", 0)) >= 2

        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(10):
                while not await garbage_refused():
                    await asyncio.sleep(0.05)
        after = await a.status()
        assert (after["tree_hash"], after["keys"]) == (before["tree_hash"], before["keys"])
        refused = after["refused"]
        assert refused["VALUE_HASH_MISMATCH"] >= 1 and refused["UNAUTHORIZED"] >= 1
        # The garbage change event and query (MALFORMED_ENCODING), the bogus revocation.
        assert refused.get("MALFORMED_ENCODING", 0) >= 2, refused
        assert refused.get("BAD_SHAPE", 0) + refused.get("MALFORMED_ENCODING", 0) >= 3, refused
        # The node still works: a new write reaches the other node.
        await a.call(
            {"op": "put", "record": make_record(ROOT.seed, "/r/after", now_ms(), b"2").encode()}
        )
        await cluster.converged()
        assert await b.value("/r/after") == b"2"
        assert await b.value("/r/forged") is None

    async def main() -> None:
        cluster = LocalCluster(tmp_path, ROOT.pk)
        try:
            async with asyncio.timeout(120):
                await scenario(cluster)
        finally:
            await cluster.close()

    asyncio.run(main())
