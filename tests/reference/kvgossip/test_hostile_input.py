"""Forged records, escalated grants, bad frames and garbage payloads are refused harmlessly."""

from __future__ import annotations

import asyncio
import struct
import time
from asyncio import StreamReader, StreamWriter
from pathlib import Path

import pytest

from swarmconf.reference.kvgossip import gossip
from swarmconf.reference.kvgossip.control import SOCKET_NAME, ControlError
from swarmconf.reference.kvgossip.frames import read_frame, write_frame
from swarmconf.reference.kvgossip.limits import MAX_SESSIONS_PER_PEER
from swarmconf.reference.kvgossip.localcluster import LocalCluster, LocalNode
from swarmconf.reference.kvgossip.membership import ClusterKey, connect_member
from swarmconf.reference.kvgossip.reasons import NodeReason
from swarmconf.spec.kvgossip import messages as m
from swarmconf.spec.kvgossip.encoding import encode
from swarmconf.spec.kvgossip.fixtures import ALICE, MALLORY, ROOT
from swarmconf.spec.kvgossip.grants import issue_grant
from swarmconf.spec.kvgossip.records import Record, make_record

# Alice may sub-grant /r/**; her grant to Mallory claims all keys, but the chain only
# authorises keys every grant on it matches.
ALICE_SUB = issue_grant(ROOT.seed, ALICE.pk, "/r/**", subgrant=True, issued_at=1)
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


async def member(node: LocalNode, key: ClusterKey) -> tuple[StreamReader, StreamWriter]:
    """A sync connection to `node` past the handshake: a member gone bad."""
    port = (await node.status())["sync_port"]
    return await connect_member("127.0.0.1", port, key, b"attacker-node-01")


async def offer(node: LocalNode, key: ClusterKey, records: list[Record]) -> list[list[object]]:
    """Play the initiator of a sync session by hand and offer each record; return RESULTs."""
    status = await node.status()
    reader, writer = await member(node, key)
    revset = bytes.fromhex(status["revset_hash"])

    async def send(*fields: object) -> list[object]:
        await write_frame(writer, m.message(*fields))  # type: ignore[arg-type]
        return m.decode_message(await read_frame(reader, idle_timeout=5))

    assert (await send(m.HELLO, 1, b"attacker", revset, b"\x00" * 32))[0] == m.HELLO
    assert (await send(m.TREE, b"\x00" * 32))[0] == m.TREE
    results = []
    for record in records:
        assert await send(m.KEYHASH, record.key, record.ts, record.entry_hash) == [m.YOURS]
        results.append(await send(m.RECORD, record.encode()))
    writer.close()
    return results


async def raw(node: LocalNode, key: ClusterKey, data: bytes) -> bytes:
    """Send raw bytes to the sync port after the handshake; return what comes back."""
    reader, writer = await member(node, key)
    writer.write(data)
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    return answer


async def failures(node: LocalNode, reason: str) -> int:
    status = await node.status()
    return int(status["sessions_failed"].get(reason, 0))


def test_hostile_input_is_refused_and_harms_nothing(tmp_path: Path) -> None:
    async def scenario(cluster: LocalCluster) -> None:
        a, b = await cluster.add("a"), await cluster.add("b")
        await a.call(
            {"op": "put", "record": make_record(ROOT.seed, "/r/keep", now_ms(), b"1").encode()}
        )
        await cluster.converged()
        before = await a.status()

        # A forged record and an escalated grant, offered in a sync session.
        results = await offer(a, cluster.key, [forged(), escalated()])
        assert [(r[1], r[2]) for r in results] == [
            ("rejected", "VALUE_HASH_MISMATCH"),
            ("rejected", "UNAUTHORIZED"),
        ]
        # The same two through the control API.
        for record, reason in ((forged(), "VALUE_HASH_MISMATCH"), (escalated(), "UNAUTHORIZED")):
            with pytest.raises(ControlError) as refused:
                await a.call({"op": "put", "record": record.encode()})
            assert refused.value.reason == reason

        # An oversize frame is refused from its length prefix; a malformed one on decoding.
        assert await raw(a, cluster.key, struct.pack(">I", 0xFFFFFFFF)) == b""
        assert await raw(a, cluster.key, struct.pack(">I", 5) + b"\xc1junk") == b""
        assert await raw(a, cluster.key, b"\x00\x00") == b""
        async with asyncio.timeout(10):
            while await failures(a, "SESSION_FRAME_TOO_LARGE") < 1 or (
                await failures(a, "SESSION_BAD_MESSAGE") < 1
            ):
                await asyncio.sleep(0.05)

        # A member holding its share of session slots gets no more.
        idle = [await member(a, cluster.key) for _ in range(MAX_SESSIONS_PER_PEER)]
        assert await raw(a, cluster.key, b"") == b""
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
