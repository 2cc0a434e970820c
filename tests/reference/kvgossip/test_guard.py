"""The sync port's gate on its own (no Serf): handshake, slots, deadline, byte budget, logging."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swarmconf.reference.kvgossip.frames import FrameError, read_frame, write_frame
from swarmconf.reference.kvgossip.guard import SyncGuard
from swarmconf.reference.kvgossip.limits import MAX_SESSIONS_PER_PEER, NoticePacer
from swarmconf.reference.kvgossip.membership import (
    MAGIC,
    ClusterKey,
    MembershipError,
    answer_handshake,
    connect_member,
)
from swarmconf.reference.kvgossip.reasons import NodeReason
from swarmconf.reference.kvgossip.refusals import Refusals
from swarmconf.reference.kvgossip.store import SqliteStore
from swarmconf.reference.kvgossip.sync import SessionOutcome, SyncSettings, drive
from swarmconf.spec.kvgossip import messages as m
from swarmconf.spec.kvgossip.fixtures import ROOT
from swarmconf.spec.kvgossip.records import make_record
from swarmconf.spec.kvgossip.session import Role
from swarmconf.spec.kvgossip.state import receive_record

KEY = ClusterKey(b"k" * 32)
ID = b"responder-node-1"
ATTACKER = b"attacker-node-01"
KEYS = 40


class Gate:
    """A guard serving on a free loopback port, with the outcomes it produced."""

    def __init__(self, guard: SyncGuard, port: int) -> None:
        self.guard = guard
        self.port = port
        self.outcomes: list[SessionOutcome | None] = []

    async def ended(self, count: int, timeout: float = 10.0) -> None:
        async with asyncio.timeout(timeout):
            while len(self.outcomes) < count:
                await asyncio.sleep(0.02)


@asynccontextmanager
async def gate(tmp_path: Path, **limits: float) -> AsyncIterator[Gate]:
    store = SqliteStore(tmp_path / "store.db", ROOT.pk)
    with store.transaction():
        for i in range(KEYS):
            record = make_record(ROOT.seed, f"/k/{i}", 1000 + i, b"v")
            receive_record(store, record.encode(), ROOT.pk, 2000)
    settings = SyncSettings(store=store, root=ROOT.pk, node_id=ID, skew_ms=60_000, max_loops=3)
    guard = SyncGuard(settings, KEY, Refusals(), **limits)  # type: ignore[arg-type]
    loop = asyncio.get_running_loop()
    served: Gate | None = None

    async def on_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        assert served is not None
        served.outcomes.append(await guard.accept(reader, writer, respond))

    async def respond(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> SessionOutcome:
        return await drive(settings, Role.RESPONDER, reader, writer)

    server = await loop.create_server(
        lambda: asyncio.StreamReaderProtocol(guard.reader(), on_connection), "127.0.0.1", 0
    )
    served = Gate(guard, int(server.sockets[0].getsockname()[1]))
    try:
        yield served
    finally:
        server.close()
        store.close()


async def hello(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Open a session as a peer with no revocations and other records."""
    revset = SqliteStore(":memory:", ROOT.pk).revset_hash()
    await write_frame(writer, m.message(m.HELLO, 1, ATTACKER, revset, b"\x01" * 32))
    assert m.decode_message(await read_frame(reader))[0] == m.HELLO


def test_a_member_gets_a_session_and_a_stranger_none(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with gate(tmp_path) as g:
            reader, writer = await connect_member("127.0.0.1", g.port, KEY, ATTACKER)
            await hello(reader, writer)
            writer.close()
            # A stranger speaking the session protocol directly gets nothing back.
            reader, writer = await asyncio.open_connection("127.0.0.1", g.port)
            await write_frame(writer, m.message(m.HELLO, 1, ATTACKER, b"\x00" * 32, b"\x00" * 32))
            assert await asyncio.wait_for(reader.read(), 10) == b""
            # Another key: the handshake fails on both sides.
            with pytest.raises(MembershipError) as refused:
                await connect_member("127.0.0.1", g.port, ClusterKey(b"x" * 32), ATTACKER)
            assert refused.value.reason == NodeReason.HANDSHAKE_FAILED
            await g.ended(3)
            assert g.outcomes[0] is not None and g.outcomes[1:] == [None, None]
            assert g.guard.refusals.counts == {NodeReason.HANDSHAKE_FAILED: 2}

    asyncio.run(scenario())


def test_a_silent_stranger_is_dropped_after_the_handshake_timeout(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with gate(tmp_path) as g:
            reader, writer = await asyncio.open_connection("127.0.0.1", g.port)
            writer.write(MAGIC)  # a start, then silence
            assert await asyncio.wait_for(reader.read(), 10) == b""
            await g.ended(1)
            assert g.guard.pending.held == 0
            assert g.guard.refusals.counts[NodeReason.HANDSHAKE_FAILED] == 1

    asyncio.run(scenario())


def test_one_peer_holds_at_most_its_share_of_slots(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with gate(tmp_path) as g:
            held = []
            for _ in range(MAX_SESSIONS_PER_PEER):
                reader, writer = await connect_member("127.0.0.1", g.port, KEY, ATTACKER)
                await hello(reader, writer)
                held.append(writer)
            reader, writer = await connect_member("127.0.0.1", g.port, KEY, ATTACKER)
            assert await asyncio.wait_for(reader.read(), 10) == b""
            assert g.guard.refusals.counts == {NodeReason.PEER_LIMIT: 1}
            # Another peer still gets a session.
            reader, other = await connect_member("127.0.0.1", g.port, KEY, b"honest-node-0001")
            await hello(reader, other)
            for writer in [*held, other]:
                writer.close()
            await g.ended(MAX_SESSIONS_PER_PEER + 2)

    asyncio.run(scenario())


def test_a_trickling_session_ends_at_its_deadline(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with gate(tmp_path, deadline=1.0) as g:
            reader, writer = await connect_member("127.0.0.1", g.port, KEY, ATTACKER)
            await hello(reader, writer)
            await write_frame(writer, m.message(m.TREE, b"\x01" * 32))
            assert m.decode_message(await read_frame(reader))[0] == m.TREE
            store = g.guard.settings.store
            with contextlib.suppress(ConnectionError, FrameError):
                for i in range(KEYS):  # one matching KEYHASH every 0.1 s: never idle
                    ts, entry_hash = store.lww_key(f"/k/{i}") or (0, b"")
                    await write_frame(writer, m.message(m.KEYHASH, f"/k/{i}", ts, entry_hash))
                    assert m.decode_message(await read_frame(reader)) == [m.AGREE]
                    await asyncio.sleep(0.1)
            await g.ended(1)
            outcome = g.outcomes[0]
            assert outcome is not None and outcome.error is not None
            assert outcome.error.startswith(NodeReason.SESSION_DEADLINE)
            assert g.guard.sessions.held == 0

    asyncio.run(scenario())


def test_a_session_past_its_byte_budget_is_ended(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with gate(tmp_path, budget=64 << 10) as g:
            reader, writer = await connect_member("127.0.0.1", g.port, KEY, ATTACKER)
            await hello(reader, writer)
            writer.write(b"\x00\x10\x00\x00" + b"\x00" * (200 << 10))  # one 1 MiB frame, begun
            with contextlib.suppress(ConnectionError):
                await writer.drain()
            await g.ended(1)
            outcome = g.outcomes[0]
            assert outcome is not None and outcome.error == NodeReason.SESSION_BUDGET
            assert g.guard.bytes_received <= (64 << 10) + (1 << 16)

    asyncio.run(scenario())


def test_refusals_are_logged_with_the_peer_and_rate_limited(
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = [0.0]
    refusals = Refusals(interval=10.0, clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, "swarmconf.reference.kvgossip"):
        for _ in range(5):
            refusals.refuse("10.0.0.9:4000", NodeReason.HANDSHAKE_FAILED, "wrong cluster key")
        refusals.refuse("10.0.0.8:4001", NodeReason.PEER_LIMIT, "peer holds 4")
        now[0] = 11.0
        refusals.refuse("10.0.0.9:4002", NodeReason.HANDSHAKE_FAILED, "wrong cluster key")
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        "refused sync connection from 10.0.0.9:4000: HANDSHAKE_FAILED: wrong cluster key",
        "refused sync connection from 10.0.0.8:4001: PEER_LIMIT: peer holds 4",
        "refused sync connection from 10.0.0.9:4002: HANDSHAKE_FAILED: wrong cluster key"
        " (4 more since the last line)",
    ]
    assert refusals.counts == {"HANDSHAKE_FAILED": 6, "PEER_LIMIT": 1}


class _Sink:
    """A writer that keeps what the responder sends."""

    def __init__(self) -> None:
        self.sent = bytearray()

    def write(self, data: bytes) -> None:
        self.sent += data

    async def drain(self) -> None:
        return None


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.booleans())
def test_any_bytes_fail_the_handshake_with_its_reason(data: bytes, magic: bool) -> None:
    async def scenario() -> None:
        reader = asyncio.StreamReader()
        reader.feed_data((MAGIC + data) if magic else data)
        reader.feed_eof()
        sink = _Sink()
        with pytest.raises(MembershipError) as refused:
            await answer_handshake(KEY, ID, reader, sink)  # type: ignore[arg-type]
        assert refused.value.reason == NodeReason.HANDSHAKE_FAILED
        assert len(sink.sent) in (0, 64)  # nothing, or one challenge and no session frame

    asyncio.run(scenario())


def test_notices_that_lead_nowhere_back_off_and_real_ones_cost_nothing() -> None:
    now = [0.0]
    pacer = NoticePacer(clock=lambda: now[0])
    assert pacer.wait_for(b"w") == 0
    pacer.finished(b"w", applied=3)
    assert pacer.wait_for(b"w") == 0  # a real write: the next notice is acted on at once
    waits = []
    for _ in range(8):
        pacer.finished(b"f", applied=0)
        waits.append(pacer.wait_for(b"f"))
    assert waits == [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    now[0] = 8.0
    assert pacer.wait_for(b"f") == 0
    pacer.finished(b"f", applied=1)
    pacer.finished(b"f", applied=0)
    assert pacer.wait_for(b"f") == 0.25  # a fruitful session forgave the source
