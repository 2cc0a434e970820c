"""The session driver over real TCP between two SQLite stores, without Serf."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
import time
from pathlib import Path

import pytest

from swarmconf.reference.kvgossip import node as node_module
from swarmconf.reference.kvgossip.frames import FrameError, read_frame, write_frame
from swarmconf.reference.kvgossip.gossip import Peer
from swarmconf.reference.kvgossip.node import Node, NodeConfig
from swarmconf.reference.kvgossip.reasons import NodeReason
from swarmconf.reference.kvgossip.store import SqliteStore
from swarmconf.reference.kvgossip.sync import (
    PushLink,
    SessionOutcome,
    SyncSettings,
    check_signatures,
    drive,
    initiate,
)
from swarmconf.reference.kvgossip.sync import serve as sync_serve
from swarmconf.spec.kvgossip import crypto
from swarmconf.spec.kvgossip import messages as m
from swarmconf.spec.kvgossip.encoding import encode
from swarmconf.spec.kvgossip.fixtures import ALICE, ROOT
from swarmconf.spec.kvgossip.grants import issue_grant, revoke_grant
from swarmconf.spec.kvgossip.push import answer
from swarmconf.spec.kvgossip.reasons import KvError, KvReason
from swarmconf.spec.kvgossip.records import Record, decode_record, make_record, record_body
from swarmconf.spec.kvgossip.session import Role
from swarmconf.spec.kvgossip.state import apply_revocation, receive_record

GRANT = issue_grant(ROOT.seed, ALICE.pk, "/a/**", subgrant=False, issued_at=1)
NOW = 10**12


def settings(store: SqliteStore, name: bytes) -> SyncSettings:
    return SyncSettings(store, ROOT.pk, name, 30_000, 3, idle_timeout=2.0, clock=lambda: NOW)


def filled(path: Path, records: list[Record]) -> SqliteStore:
    store = SqliteStore(path, ROOT.pk)
    for record in records:
        with store.transaction():
            receive_record(store, record.encode(), ROOT.pk, NOW)
    return store


Outcomes = asyncio.Queue[SessionOutcome]


async def serve(store: SqliteStore) -> tuple[asyncio.Server, int, Outcomes]:
    outcomes: Outcomes = asyncio.Queue()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        outcomes.put_nowait(
            await drive(settings(store, b"responder"), Role.RESPONDER, reader, writer)
        )

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, int(server.sockets[0].getsockname()[1]), outcomes


def test_two_stores_converge(tmp_path: Path) -> None:
    left = filled(
        tmp_path / "l",
        [make_record(ROOT.seed, "/x", 5, b"l"), make_record(ROOT.seed, "/gone", 6, None)],
    )
    right = filled(
        tmp_path / "r",
        [
            make_record(ROOT.seed, "/x", 4, b"older"),
            make_record(ALICE.seed, "/a/y", 7, b"r", [GRANT]),
        ],
    )
    with right.transaction():
        other = issue_grant(ROOT.seed, ALICE.pk, "/b/**", subgrant=False, issued_at=1)
        apply_revocation(right, revoke_grant(ROOT.seed, other, 2, ROOT.pk).encode(), ROOT.pk)

    async def scenario() -> tuple[SessionOutcome, SessionOutcome]:
        server, port, outcomes = await serve(right)
        outcome = await initiate(settings(left, b"initiator"), "127.0.0.1", port)
        responded = await outcomes.get()
        server.close()
        return outcome, responded

    outcome, responded = asyncio.run(scenario())
    assert outcome.error is None and responded.error is None
    assert left.tree_hash() == right.tree_hash() and left.revset_hash() == right.revset_hash()
    assert [k for k, _, _ in left.entries_newest_first()] == ["/a/y", "/gone", "/x"]
    record = right.get("/x")
    assert record is not None and record.value == b"l"


def test_oversize_frame_ends_the_session_and_changes_nothing(tmp_path: Path) -> None:
    store = filled(tmp_path / "s", [make_record(ROOT.seed, "/x", 5, b"v")])
    before = store.tree_hash()

    async def scenario() -> SessionOutcome:
        server, port, outcomes = await serve(store)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(struct.pack(">I", 5 << 20))
        assert await reader.read() == b""
        outcome = await outcomes.get()
        server.close()
        return outcome

    assert asyncio.run(scenario()).error == "SESSION_FRAME_TOO_LARGE"
    assert store.tree_hash() == before


class BrokenStore(SqliteStore):
    def put(self, record: Record) -> None:
        super().put(record)
        raise RuntimeError("disk on fire")


def test_an_unexpected_error_costs_the_session_only(tmp_path: Path) -> None:
    source = filled(
        tmp_path / "s", [make_record(ROOT.seed, f"/k{i}", 5 + i, b"v") for i in range(3)]
    )
    broken = BrokenStore(tmp_path / "b", ROOT.pk)

    async def scenario() -> SessionOutcome:
        server, port, _ = await serve(source)
        outcome = await initiate(settings(broken, b"broken"), "127.0.0.1", port)
        server.close()
        return outcome

    assert asyncio.run(scenario()).error == NodeReason.INTERNAL_ERROR
    assert broken.count() == 0  # the failed apply was rolled back whole
    assert broken.integrity_ok()


def test_signatures_checked_ahead_are_the_spec_s_own_verdicts() -> None:
    good = make_record(ALICE.seed, "/a/ahead", 7, b"v", [GRANT])
    forged_body = record_body(good.key, good.ts + 1, False, good.value_hash, good.signer)
    forged = encode([forged_body, good.signature, good.value, list(good.chain)])
    crypto.verify.cache_clear()
    check_signatures(m.message(m.RECORDS, [good.encode(), forged, b"\xc1", encode([1, 2])]))
    check_signatures(b"not a frame")
    assert crypto.verify.cache_info().currsize == 2
    hits = crypto.verify.cache_info().hits
    assert decode_record(good.encode()) == good
    with pytest.raises(KvError) as refused:
        decode_record(forged)
    assert refused.value.reason is KvReason.BAD_SIGNATURE
    assert crypto.verify.cache_info().hits == hits + 2


def test_a_running_session_names_its_peer_on_both_sides(tmp_path: Path) -> None:
    left = filled(tmp_path / "l", [make_record(ROOT.seed, "/l", 5, b"l")])
    right = filled(tmp_path / "r", [make_record(ROOT.seed, "/r", 6, b"r")])
    mine, theirs = settings(left, b"initiator"), settings(right, b"responder")
    seen: list[tuple[dict[bytes, int], dict[bytes, int]]] = []
    left.listeners.append(lambda _: seen.append((dict(mine.in_session), {})))
    right.listeners.append(lambda _: seen.append(({}, dict(theirs.in_session))))

    async def scenario() -> None:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await drive(theirs, Role.RESPONDER, reader, writer)

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = int(server.sockets[0].getsockname()[1])
        assert (await initiate(mine, "127.0.0.1", port)).error is None
        server.close()
        await server.wait_closed()

    asyncio.run(scenario())
    assert ({b"responder": 1}, {}) in seen and ({}, {b"initiator": 1}) in seen
    assert not mine.in_session and not theirs.in_session


def test_a_node_opens_no_second_session_with_a_peer_or_past_its_limit(tmp_path: Path) -> None:
    node = Node(NodeConfig(tmp_path / "n", ROOT.pk, "n", insecure=True))
    with socket.socket() as closed:  # bound, never listening: connections are refused
        closed.bind(("127.0.0.1", 0))
        peer = Peer("p", b"p" * 16, "127.0.0.1", closed.getsockname()[1])
        node.settings.in_session[peer.node_id] += 1
        assert asyncio.run(node._session(peer)) is None
        del node.settings.in_session[peer.node_id]
        node.settings.running = node.settings.max_syncs  # busy with other peers
        assert asyncio.run(node._session(peer)) is None
        node.settings.running = 0
        outcome = asyncio.run(node._session(peer))
        assert node.settings.running == 0
    node.store.close()
    assert outcome is not None and outcome.error is not None
    assert outcome.error.startswith(NodeReason.CONNECT_FAILED)


def test_a_push_link_opened_ahead_serves_the_first_request() -> None:
    firsts: list[list[object]] = []

    async def scenario() -> None:
        async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            with contextlib.suppress(FrameError):
                firsts.append(m.decode_message(await read_frame(reader)))
                await write_frame(writer, m.message(m.RECORDS, []))
                while await read_frame(reader):
                    await write_frame(writer, m.message(m.RECORDS, []))

        server = await asyncio.start_server(answer, "127.0.0.1", 0)
        connects: list[int] = []

        async def connect(
            host: str, port: int
        ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
            connects.append(port)
            return await asyncio.open_connection(host, port)

        link = PushLink("127.0.0.1", int(server.sockets[0].getsockname()[1]), connect)
        assert not link.connected
        await link.open()
        await link.open()
        assert link.connected and len(connects) == 1
        assert await link.request(m.message(m.FETCH, ["/x"])) == [m.RECORDS, []]
        assert len(connects) == 1
        old = link._conn
        assert old is not None and link.age > 0
        await link.renew()
        assert len(connects) == 2 and link._conn is not old and old[1].is_closing()
        assert await link.request(m.message(m.FETCH, ["/x"])) == [m.RECORDS, []]
        link.close()
        assert link.age == 0
        server.close()

    asyncio.run(scenario())
    # Each connection says first that it carries pushes, so the peer keeps it open as long as
    # a push connection (not the seconds a session's HELLO may take).
    assert firsts == [[m.PUSH, []], [m.PUSH, []]]


def test_a_node_renews_push_links_that_near_the_session_deadline(tmp_path: Path) -> None:
    node = Node(NodeConfig(tmp_path / "n", ROOT.pk, "n", insecure=True))
    peers = [Peer(name, name.encode() * 16, "127.0.0.1", 1) for name in "yo"]
    node._nearest = peers
    renewed: list[str] = []

    class Link(PushLink):
        async def renew(self) -> None:
            renewed.append(self.host)

    for peer, age in zip(peers, (node_module.LINK_RENEW_AGE + 1, 1.0), strict=True):
        link = node._links[peer.node_id] = Link(peer.name, 1, node.guard.connect)
        link._conn, link._opened_at = (None, None), time.monotonic() - age  # type: ignore[assignment]

    async def scenario() -> None:
        node._renew_links()
        await asyncio.gather(*node._handlers)

    asyncio.run(scenario())
    node.store.close()
    assert renewed == ["y"]


def test_a_node_checkpoints_its_store_off_the_write_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(node_module, "CHECKPOINT_INTERVAL", 0.01)
    node = Node(NodeConfig(tmp_path / "n", ROOT.pk, "n", insecure=True))
    db = tmp_path / "n" / "store.db"
    assert node.store._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
    before = db.stat().st_size

    async def scenario() -> None:
        loop = asyncio.create_task(node._checkpoint_loop())
        with node.store.transaction():
            for i in range(50):
                receive_record(
                    node.store, make_record(ROOT.seed, f"/c/{i}", 5, b"v").encode(), ROOT.pk, NOW
                )
        async with asyncio.timeout(10):
            while db.stat().st_size == before:
                await asyncio.sleep(0.01)
        loop.cancel()

    asyncio.run(scenario())
    node.store.close()


def test_a_node_in_as_many_sessions_as_it_runs_refuses_another_hello(tmp_path: Path) -> None:
    """A fresh node among 31 holders is sent a session by each: past `max_syncs`, or from a
    peer it is in a session with already, they are refused, not run to move the same records
    again."""
    store = filled(tmp_path / "s", [make_record(ROOT.seed, "/x", 5, b"v")])
    shared = settings(store, b"busy")
    peer = b"p" * 16

    async def outcome_with(running: int, busy_with_peer: bool) -> SessionOutcome | None:
        shared.running = running
        shared.in_session.clear()
        if busy_with_peer:
            shared.in_session[peer] += 1
        outcomes: asyncio.Queue[SessionOutcome | None] = asyncio.Queue()

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            outcomes.put_nowait(
                await sync_serve(shared, reader, writer, lambda got, sender: None, peer)
            )

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = int(server.sockets[0].getsockname()[1])
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        await write_frame(writer, encode(["HELLO", 1]))
        outcome = await outcomes.get()
        writer.close()
        server.close()
        return outcome

    def error(running: int, busy_with_peer: bool) -> str:
        outcome = asyncio.run(outcome_with(running, busy_with_peer))
        assert outcome is not None
        return outcome.error or ""

    assert error(shared.max_syncs, False).startswith(NodeReason.SESSION_LIMIT)
    assert error(0, True).startswith(NodeReason.PEER_LIMIT)
    admitted = error(shared.max_syncs - 1, False)
    assert not admitted.startswith((NodeReason.SESSION_LIMIT, NodeReason.PEER_LIMIT))


def test_a_node_that_fetched_a_record_relays_it_when_the_push_comes(tmp_path: Path) -> None:
    # At 1,000 simulated members, members that fetched a write after its change event relayed
    # nothing when the push came, cutting their span of the push tree off.
    node = Node(NodeConfig(tmp_path / "n", ROOT.pk, "n", insecure=True))
    record = make_record(ALICE.seed, "/a/x", NOW - 1, b"v", [GRANT])
    with node.store.transaction():  # fetched (K10) before the push arrived
        receive_record(node.store, record.encode(), ROOT.pk, NOW)
    relayed: list[list[Record]] = []
    node._push = lambda records, sender=None: relayed.append(records)  # type: ignore[method-assign]
    push = m.message(m.PUSH, [record.encode()])
    for _ in range(2):
        node._relay(answer(node.store, push, ROOT.pk, NOW), b"writer")
    node.store.close()
    assert [[(r.ts, r.entry_hash) for r in records] for records in relayed] == [
        [(record.ts, record.entry_hash)],
        [],
    ]
