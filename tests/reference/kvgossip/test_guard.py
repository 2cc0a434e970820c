"""The sync port's gate on its own (no Serf): handshake, node ids, slots, deadline, byte budget,
logging."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.kvgossip.testbed.attacks import Impostor
from swarmconf.reference.kvgossip.door import Door, Opening
from swarmconf.reference.kvgossip.frames import (
    FrameError,
    FrameReader,
    FrameWriter,
    read_frame,
    write_frame,
)
from swarmconf.reference.kvgossip.guard import SyncGuard
from swarmconf.reference.kvgossip.identity import Directory, Identity
from swarmconf.reference.kvgossip.limits import MAX_SESSIONS_PER_PEER, Slots
from swarmconf.reference.kvgossip.membership import (
    MAGIC,
    ClusterKey,
    MembershipError,
    answer_handshake,
    connect_member,
)
from swarmconf.reference.kvgossip.reasons import NodeReason
from swarmconf.reference.kvgossip.refusals import Refusals
from swarmconf.reference.kvgossip.serf_rpc import Member
from swarmconf.reference.kvgossip.store import SqliteStore
from swarmconf.reference.kvgossip.sync import SessionOutcome, SyncSettings, drive
from swarmconf.reference.kvgossip.wire import SealedReader, SealedWriter
from swarmconf.spec.kvgossip import messages as m
from swarmconf.spec.kvgossip import recon
from swarmconf.spec.kvgossip.fixtures import ROOT
from swarmconf.spec.kvgossip.records import make_record
from swarmconf.spec.kvgossip.session import Role
from swarmconf.spec.kvgossip.state import receive_record

KEY = ClusterKey(b"k" * 32)
RESPONDER = Identity(b"r" * 32)
ATTACKER = Identity(b"a" * 32)
HONEST = Identity(b"h" * 32)
UNANNOUNCED = Identity(b"u" * 32)
ID = RESPONDER.node_id
KEYS = 40


def member(name: str, identity: Identity, status: str = "alive") -> Member:
    return Member(name, "127.0.0.1", 7946, identity.tags(), status)


def directory() -> Directory:
    """What the members' Serf tags announce: every identity above but `UNANNOUNCED`."""
    announced = Directory()
    announced.update(member(n, i) for n, i in (("r", RESPONDER), ("a", ATTACKER), ("h", HONEST)))
    return announced


class Gate:
    """A guard serving on a free loopback port, with the outcomes it produced."""

    def __init__(self, guard: SyncGuard, port: int) -> None:
        self.guard = guard
        self.port = port
        self.outcomes: list[SessionOutcome | None] = []
        self.door: Door | None = None

    async def ended(self, count: int, timeout: float = 10.0) -> None:
        async with asyncio.timeout(timeout):
            while len(self.outcomes) < count:
                await asyncio.sleep(0.02)


@asynccontextmanager
async def gate(
    tmp_path: Path, key: ClusterKey | None = KEY, **limits: float
) -> AsyncIterator[Gate]:
    store = SqliteStore(tmp_path / "store.db", ROOT.pk)
    with store.transaction():
        for i in range(KEYS):
            record = make_record(ROOT.seed, f"/k/{i}", 1000 + i, b"v")
            receive_record(store, record.encode(), ROOT.pk, 2000)
    settings = SyncSettings(store=store, root=ROOT.pk, node_id=ID, skew_ms=60_000, max_loops=3)
    guard = SyncGuard(settings, key, RESPONDER, directory(), Refusals(), **limits)  # type: ignore[arg-type]
    served: Gate | None = None

    async def on_connection(opening: Opening) -> None:
        assert served is not None
        served.outcomes.append(await guard.accept(opening, respond))

    async def respond(
        reader: FrameReader, writer: FrameWriter, peer: bytes | None
    ) -> SessionOutcome:
        return await drive(settings, Role.RESPONDER, reader, writer, proven=peer)

    tasks: set[asyncio.Task[None]] = set()
    door = guard.door(lambda opening: tasks.add(asyncio.create_task(on_connection(opening))))
    served = Gate(guard, door.open("127.0.0.1", 0, 128))
    served.door = door
    try:
        yield served
    finally:
        door.close()
        store.close()


async def hello(
    reader: FrameReader, writer: FrameWriter, node_id: bytes = ATTACKER.node_id
) -> None:
    """Open a session as a peer with no revocations and other records."""
    revset = SqliteStore(":memory:", ROOT.pk).revset_hash()
    await write_frame(writer, m.message(m.HELLO, 2, node_id, revset, b"\x01" * 32, 1))
    assert m.decode_message(await read_frame(reader))[0] == m.HELLO


async def unanswered(reader: asyncio.StreamReader) -> bool:
    """True if the connection was closed without a byte sent back: a clean close, or a reset
    (the door closes a stranger's socket without reading the rest of what it sent)."""
    try:
        return await asyncio.wait_for(reader.read(), 10) == b""
    except ConnectionResetError:
        return True


async def join(port: int, identity: Identity) -> tuple[SealedReader, SealedWriter]:
    return await connect_member("127.0.0.1", port, KEY, identity, directory())


async def closed(reader: SealedReader) -> bool:
    """True if a sealed connection was ended cleanly (its FINAL message) with no frame sent."""
    with pytest.raises(FrameError) as ended:
        await asyncio.wait_for(read_frame(reader), 10)
    return ended.value.reason == NodeReason.CONNECTION_CLOSED


async def refused_in_handshake(port: int, identity: Identity) -> bool:
    """True if the node closes the connection before the key exchange: the initiator sees the
    handshake fail."""
    with pytest.raises(MembershipError) as refused:
        await join(port, identity)
    return refused.value.reason == NodeReason.HANDSHAKE_FAILED


def test_a_member_gets_a_session_and_a_stranger_none(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with gate(tmp_path) as g:
            reader, writer = await join(g.port, ATTACKER)
            await hello(reader, writer)
            writer.close()
            # A stranger speaking the session protocol directly gets nothing back.
            reader, writer = await asyncio.open_connection("127.0.0.1", g.port)
            hello_frame = m.message(m.HELLO, 2, ATTACKER.node_id, b"\x00" * 32, b"\x00" * 32, 0)
            await write_frame(writer, hello_frame)
            assert await unanswered(reader)
            # Another key: the handshake fails on both sides.
            with pytest.raises(MembershipError) as refused:
                await connect_member(
                    "127.0.0.1", g.port, ClusterKey(b"x" * 32), ATTACKER, directory()
                )
            assert refused.value.reason == NodeReason.HANDSHAKE_FAILED
            # The door refused the stranger; the other key got as far as the handshake.
            await g.ended(2)
            # Sessions end concurrently, in no set order: one session ran, one was refused.
            assert sorted(o is not None for o in g.outcomes) == [False, True]
            assert g.guard.refusals.counts == {NodeReason.HANDSHAKE_FAILED: 2}

    asyncio.run(scenario())


def test_a_silent_stranger_is_dropped_after_the_handshake_timeout(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with gate(tmp_path) as g:
            reader, writer = await asyncio.open_connection("127.0.0.1", g.port)
            writer.write(MAGIC)  # a start, then silence
            assert await asyncio.wait_for(reader.read(), 10) == b""
            assert g.outcomes == []  # the door closed it: it never got a stream
            assert g.guard.pending.held == 0
            assert g.guard.refusals.counts[NodeReason.HANDSHAKE_FAILED] == 1

    asyncio.run(scenario())


def test_the_door_refuses_connections_that_never_open_before_they_get_a_stream(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        async with gate(tmp_path) as g:
            assert g.door is not None
            idle = [await asyncio.open_connection("127.0.0.1", g.port) for _ in range(16)]
            for first in (b"", b"GET / HTTP/1.1\r\n", MAGIC[:5]):  # gone, garbage, half
                for _ in range(20):
                    _, writer = await asyncio.open_connection("127.0.0.1", g.port)
                    writer.write(first)
                    writer.close()

            async def refused() -> bool:
                counts = g.guard.refusals.counts
                return counts[NodeReason.HANDSHAKE_FAILED] == 60 and g.door.waiting == 16

            await until(refused)
            assert g.guard.pending.held == 16  # the idle ones, until the handshake timeout
            for _, writer in idle:
                writer.close()
            await until(lambda: _refused_all(g, 76))
            assert g.guard.pending.held == 0 and g.outcomes == []  # no stream, no task, ever

    asyncio.run(scenario())


async def _refused_all(g: Gate, count: int) -> bool:
    return g.guard.refusals.counts[NodeReason.HANDSHAKE_FAILED] == count


async def until(check: Callable[[], Awaitable[bool]], timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not await check():
            await asyncio.sleep(0.02)


def test_one_peer_holds_at_most_its_share_of_slots(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with gate(tmp_path) as g:
            held = []
            for _ in range(MAX_SESSIONS_PER_PEER):
                reader, writer = await join(g.port, ATTACKER)
                await hello(reader, writer)
                held.append(writer)
            reader, writer = await join(g.port, ATTACKER)
            assert await closed(reader)
            assert g.guard.refusals.counts == {NodeReason.PEER_LIMIT: 1}
            # Another peer still gets a session.
            reader, other = await join(g.port, HONEST)
            await hello(reader, other, HONEST.node_id)
            for writer in [*held, other]:
                writer.close()
            await g.ended(MAX_SESSIONS_PER_PEER + 2)

    asyncio.run(scenario())


def test_a_member_claiming_another_members_id_or_an_unknown_one_is_refused(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        async with gate(tmp_path) as g:
            claims = [
                Impostor(ATTACKER.seed, claimed=HONEST.node_id),  # another member's id
                Impostor(ATTACKER.seed, claimed=b"squatting-node-1"),  # an id nobody announces
                UNANNOUNCED,  # its own key, which no member announces
            ]
            for identity in claims:
                assert await refused_in_handshake(g.port, identity)
            await g.ended(3)
            assert g.outcomes == [None, None, None]  # refused before any session slot
            assert g.guard.refusals.counts == {
                NodeReason.NODE_ID_NOT_PROVEN: 1,
                NodeReason.UNKNOWN_NODE_ID: 2,
            }
            # Its own id still gets a session: the member is refused only what is not its own.
            reader, writer = await join(g.port, ATTACKER)
            await hello(reader, writer)
            writer.close()
            await g.ended(4)

    asyncio.run(scenario())


def test_a_member_claiming_many_ids_holds_one_share_of_slots(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with gate(tmp_path) as g:
            for i in range(3 * MAX_SESSIONS_PER_PEER):  # each claim refused before a slot
                impostor = Impostor(ATTACKER.seed, claimed=bytes([i]) * 16)
                assert await refused_in_handshake(g.port, impostor)
            held = []
            for _ in range(MAX_SESSIONS_PER_PEER + 1):
                reader, writer = await join(g.port, ATTACKER)
                held.append(writer)
                if len(held) <= MAX_SESSIONS_PER_PEER:
                    await hello(reader, writer)
            assert await closed(reader)
            assert g.guard.sessions.held == MAX_SESSIONS_PER_PEER
            assert g.guard.refusals.counts == {
                NodeReason.UNKNOWN_NODE_ID: 3 * MAX_SESSIONS_PER_PEER,
                NodeReason.PEER_LIMIT: 1,
            }
            for writer in held:
                writer.close()
            await g.ended(4 * MAX_SESSIONS_PER_PEER + 1)

    asyncio.run(scenario())


def test_a_hello_naming_another_id_than_the_proven_one_ends_the_session(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with gate(tmp_path) as g:
            reader, writer = await join(g.port, ATTACKER)
            revset = SqliteStore(":memory:", ROOT.pk).revset_hash()
            hello_frame = m.message(m.HELLO, 2, HONEST.node_id, revset, b"\x01" * 32, 1)
            await write_frame(writer, hello_frame)
            assert await closed(reader)
            await g.ended(1)
            outcome = g.outcomes[0]
            assert outcome is not None and outcome.error is not None
            assert outcome.error.startswith(NodeReason.HELLO_ID_MISMATCH)
            assert not g.guard.settings.in_session

    asyncio.run(scenario())


def test_an_initiator_refuses_a_responder_that_is_not_the_node_it_meant(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with gate(tmp_path) as g:
            client = SyncGuard(g.guard.settings, KEY, HONEST, directory(), Refusals())
            _reader, writer = await client.connect("127.0.0.1", g.port, expect=ID)
            writer.close()
            with pytest.raises(MembershipError) as refused:
                await client.connect("127.0.0.1", g.port, expect=ATTACKER.node_id)
            assert refused.value.reason == NodeReason.NODE_ID_NOT_PROVEN
            stranger = SyncGuard(g.guard.settings, KEY, HONEST, Directory(), Refusals())
            with pytest.raises(MembershipError) as refused:
                await stranger.connect("127.0.0.1", g.port)
            assert refused.value.reason == NodeReason.UNKNOWN_NODE_ID
            await g.ended(3)

    asyncio.run(scenario())


def test_the_directory_keeps_only_ids_bound_to_their_announced_key() -> None:
    forged = {**HONEST.tags(), "kvg-pk": ATTACKER.public.hex()}
    members = [
        member("a", ATTACKER),
        member("h", HONEST, status="failed"),  # may come back: still a member
        member("r", RESPONDER, status="left"),
        Member("m", "127.0.0.1", 1, forged, "alive"),  # another's id under its own key
        Member("x", "127.0.0.1", 1, {"kvg-id": "zz", "kvg-pk": "00"}, "alive"),
    ]
    fetched: list[int] = []
    now = [0.0]

    async def fetch() -> list[Member]:
        fetched.append(1)
        return members

    async def scenario() -> None:
        d = Directory(fetch, interval=1.0, clock=lambda: now[0])
        assert await d.lookup(ATTACKER.node_id) == ATTACKER.public  # fetched on the miss
        assert await d.lookup(HONEST.node_id) == HONEST.public
        assert await d.lookup(RESPONDER.node_id) is None
        assert len(d) == 2 and len(fetched) == 1  # no second fetch within the interval
        now[0] = 1.0
        assert await d.lookup(b"squatting-node-1") is None
        assert len(fetched) == 2

    asyncio.run(scenario())


def test_a_trickling_session_ends_at_its_deadline(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with gate(tmp_path, deadline=1.0) as g:
            reader, writer = await join(g.port, ATTACKER)
            await hello(reader, writer)
            store = g.guard.settings.store
            await write_frame(writer, m.message(m.RECON, recon.initiate(store.sync_items())))
            assert m.decode_message(await read_frame(reader))[0] == m.RECON
            with contextlib.suppress(ConnectionError, FrameError):
                for i in range(KEYS):  # one WANT every 0.1 s, each answered: never idle
                    await write_frame(writer, m.message(m.WANT, [bytes([i % 256]) * 32]))
                    assert m.decode_message(await read_frame(reader)) == [m.RECORDS, []]
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
            reader, writer = await join(g.port, ATTACKER)
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
            await answer_handshake(KEY, RESPONDER, directory(), reader, sink)  # type: ignore[arg-type]
        assert refused.value.reason == NodeReason.HANDSHAKE_FAILED
        assert len(sink.sent) in (0, 128)  # nothing, or one challenge and no session frame

    asyncio.run(scenario())


def test_without_a_key_the_door_hands_every_connection_on_at_once(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with gate(tmp_path, key=None) as g:
            store = SqliteStore(tmp_path / "client.db", ROOT.pk)
            settings = SyncSettings(
                store=store, root=ROOT.pk, node_id=b"c" * 16, skew_ms=60_000, max_loops=3
            )
            client = SyncGuard(settings, None, HONEST, directory(), Refusals())
            outcome = await client.open("127.0.0.1", g.port)
            assert outcome.error is None, outcome.error
            assert store.count() == KEYS
            store.close()
            await g.ended(1)
            assert g.guard.pending.held == 0 and not g.guard.refusals.counts

    asyncio.run(scenario())


def test_the_door_listens_on_every_address_of_its_host() -> None:
    async def scenario() -> None:
        refusals = Refusals()
        door = Door(
            Slots(8, 8, "pending handshakes"),
            refusals,
            lambda opening: None,
            magic=MAGIC,
            opening_size=40,
            timeout=2.0,
        )
        port = door.open("localhost", 0, 8)
        infos = socket.getaddrinfo("localhost", port, type=socket.SOCK_STREAM)
        addresses = {info[4][0] for info in infos}
        try:
            for address in addresses:
                _, writer = await asyncio.open_connection(address, port)
                writer.close()

            async def all_refused() -> bool:
                return refusals.counts[NodeReason.HANDSHAKE_FAILED] == len(addresses)

            await until(all_refused)
        finally:
            door.close()

    asyncio.run(scenario())
