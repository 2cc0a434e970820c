"""Sync on TCP: sessions, pushes and fetches over length-prefixed frames (decisions K6-K10).

Each frame the peer sends is handed to the spec inside one storage transaction, so whatever
the frame changes (a batch of records with their chains, revocations and the purges they
cause) is atomic. A frame that is oversize, malformed or arrives out of turn ends the session
with a reason code; the connection is closed and the store keeps every batch fully applied
before it. Frames go out from a writer task of their own, so a side that sends many frames at
once (pipelined `WANT`s) keeps reading its peer's answers and neither side blocks the other.
Frames come in through a reader task that stays one frame ahead: while the session applies one
batch of records, the signatures of the next are checked on a worker thread (libsodium runs
without the GIL) into the cache of `crypto.verify`, so the spec's own check of each record,
which still runs, finds its answer ready; the same pass reads the batch's keys, which the store
looks up in one query before the session applies the batch.

One sync port serves both kinds of connection, told apart by the first frame: a `HELLO` opens a
session (the responder's side); `PUSH` and `FETCH` frames are answered one by one for as long
as the peer keeps the connection open (`PushLink` is the client side).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import msgpack  # type: ignore[import-untyped]

from swarmconf.spec.kvgossip import crypto
from swarmconf.spec.kvgossip import messages as m
from swarmconf.spec.kvgossip.messages import MAX_FRAME_BYTES
from swarmconf.spec.kvgossip.push import Answer, answer
from swarmconf.spec.kvgossip.reasons import KvError, KvReason
from swarmconf.spec.kvgossip.session import Role, Session, SessionLog

from .frames import IDLE_TIMEOUT, FrameError, FrameReader, FrameWriter, read_frame, write_frame
from .limits import MAX_SYNCS
from .reasons import NodeReason
from .store import SqliteStore

log = logging.getLogger("swarmconf.reference.kvgossip")


def wall_clock_ms() -> int:
    """Milliseconds since the Unix epoch: the spec's record and skew clock."""
    return time.time_ns() // 1_000_000


@dataclass(frozen=True)
class SessionOutcome:
    """How a session ended: `error` is None for a clean end, else a stable reason code."""

    role: Role
    peer_id: bytes | None
    error: str | None
    log: SessionLog


@dataclass
class SyncSettings:
    """What every session of one node shares."""

    store: SqliteStore
    root: bytes
    node_id: bytes
    skew_ms: int
    max_loops: int
    idle_timeout: float = IDLE_TIMEOUT
    clock: Callable[[], int] = wall_clock_ms
    in_session: Counter[bytes] = field(default_factory=Counter)
    """Node ids of the peers a session is running with, in either role, once their HELLO came."""
    max_syncs: int = MAX_SYNCS
    """Sessions run at once, in either role, before a `HELLO` is refused."""
    running: int = 0
    """Sessions running now: answered ones from their first frame, the node's own from before
    their handshake."""


async def drive(
    settings: SyncSettings,
    role: Role,
    reader: FrameReader,
    writer: FrameWriter,
    first: bytes | None = None,
    *,
    proven: bytes | None = None,
) -> SessionOutcome:
    """Run one session to its end on an open connection, then close the connection.

    `first` is a frame the responder's dispatcher already read; `proven` is the node id the
    peer proved in the handshake, which its HELLO must name (`HELLO_ID_MISMATCH`).
    """
    store = settings.store
    session = Session(
        role,
        store,
        settings.root,
        settings.node_id,
        skew_ms=settings.skew_ms,
        max_loops=settings.max_loops,
    )
    outbox: asyncio.Queue[bytes | None] = asyncio.Queue()
    sender = asyncio.create_task(_send_all(writer, outbox))
    inbox: asyncio.Queue[_Incoming] = asyncio.Queue(maxsize=1)
    receiver = asyncio.create_task(_read_ahead(reader, settings.idle_timeout, inbox))
    error: str | None = None
    peer: bytes | None = None
    try:
        with store.transaction():
            outgoing = session.start(settings.clock())
            if first is not None:
                outgoing += session.receive(first, settings.clock())
        while True:
            if peer is None and session.peer_id is not None:
                if proven is not None and session.peer_id != proven:
                    error = f"{NodeReason.HELLO_ID_MISMATCH}: {session.peer_id.hex()}"
                    break
                peer = session.peer_id
                settings.in_session[peer] += 1
            for frame in outgoing:
                outbox.put_nowait(frame)
            if session.done:
                break
            incoming = await inbox.get()
            if isinstance(incoming, FrameError):
                if incoming.reason == KvReason.SESSION_TIMEOUT:
                    session.timeout()
                else:
                    error = incoming.reason
                break
            frame, checked = incoming
            keys = [] if checked is None else await checked
            with store.transaction():
                store.prefetch(keys)
                outgoing = session.receive(frame, settings.clock())
        outbox.put_nowait(None)
        await sender
    except FrameError as exc:
        error = exc.reason
    except Exception:  # a bug must cost one session, never the node or the store
        log.exception("sync session failed")
        error = NodeReason.INTERNAL_ERROR
    finally:
        if peer is not None:
            settings.in_session[peer] -= 1
            if not settings.in_session[peer]:
                del settings.in_session[peer]
        receiver.cancel()
        sender.cancel()
        with contextlib.suppress(asyncio.CancelledError, FrameError):
            await sender
        with contextlib.suppress(asyncio.CancelledError):
            await receiver
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
    if session.error is not None:
        error = session.error.value
    return SessionOutcome(role, session.peer_id, error, session.log)


_Incoming = tuple[bytes, "asyncio.Future[list[str]] | None"] | FrameError
"""A frame with the signature check running for it, or why no more frames come."""
_RECORDS_PREFIX = m.message(m.RECORDS, [])[:-1]


async def _read_ahead(
    reader: FrameReader, idle_timeout: float, inbox: asyncio.Queue[_Incoming]
) -> None:
    """Read frames into `inbox` (one ahead of the session) until the first failure."""
    loop = asyncio.get_running_loop()
    while True:
        try:
            frame = await read_frame(reader, max_size=MAX_FRAME_BYTES, idle_timeout=idle_timeout)
        except FrameError as exc:
            await inbox.put(exc)
            return
        checked = None
        if frame.startswith(_RECORDS_PREFIX):
            checked = loop.run_in_executor(None, check_signatures, frame)
        await inbox.put((frame, checked))


def check_signatures(frame: bytes) -> list[str]:
    """Verify the signature of each record a RECORDS frame carries, filling `crypto.verify`'s
    cache, and return the records' keys; anything malformed is left to the spec, which refuses
    it."""
    keys: list[str] = []
    try:
        _, records = msgpack.unpackb(frame)
        for data in records:
            body, signature, _, _ = msgpack.unpackb(data)
            _, key, _, _, _, signer = msgpack.unpackb(body)
            if type(signer) is bytes and type(signature) is bytes and type(body) is bytes:
                crypto.verify(signer, body, signature)
            if type(key) is str:
                keys.append(key)
    except (ValueError, TypeError, IndexError, KeyError, msgpack.UnpackException):
        pass
    return keys


async def _send_all(writer: FrameWriter, outbox: asyncio.Queue[bytes | None]) -> None:
    """Write queued frames in order until the None that ends them."""
    while (frame := await outbox.get()) is not None:
        await write_frame(writer, frame, max_size=MAX_FRAME_BYTES)


async def serve(
    settings: SyncSettings,
    reader: FrameReader,
    writer: FrameWriter,
    on_push: Callable[[Answer, bytes | None], None],
    proven: bytes | None = None,
) -> SessionOutcome | None:
    """Serve one incoming connection: a session, or PUSH/FETCH frames until the peer leaves.

    Returns the session's outcome, or None for a push connection. `on_push` sees every
    answered PUSH and who sent it (to relay what was new); `proven` is the peer's node id, as
    for `drive`.
    """
    try:
        first = await read_frame(
            reader, max_size=MAX_FRAME_BYTES, idle_timeout=settings.idle_timeout
        )
    except FrameError as exc:
        writer.close()
        return SessionOutcome(Role.RESPONDER, None, exc.reason, SessionLog())
    if not first.startswith(_PUSH_PREFIXES):
        error = None
        if proven is not None and proven in settings.in_session:
            error = f"{NodeReason.PEER_LIMIT}: a session with {proven.hex()} is running"
        elif settings.running >= settings.max_syncs:
            error = f"{NodeReason.SESSION_LIMIT}: {settings.running} sessions running"
        if error is not None:
            writer.close()
            return SessionOutcome(Role.RESPONDER, proven, error, SessionLog())
        settings.running += 1
        try:
            return await drive(settings, Role.RESPONDER, reader, writer, first, proven=proven)
        finally:
            settings.running -= 1
    frame: bytes | None = first
    try:
        while frame is not None:
            with settings.store.transaction():
                got = answer(
                    settings.store, frame, settings.root, settings.clock(), settings.skew_ms
                )
            await write_frame(writer, got.reply)
            if got.verdicts:
                on_push(got, proven)
            frame = await read_frame(reader, max_size=MAX_FRAME_BYTES, idle_timeout=PUSH_IDLE)
    except (FrameError, KvError) as exc:
        log.debug("push connection ended: %s", exc)
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
    return None


EMPTY_PUSH = m.message(m.PUSH, [])
PUSH_IDLE = 300.0
"""A push connection stays open this long without a frame."""
_PUSH_PREFIXES = (m.message(m.PUSH, [])[:-1], m.message(m.FETCH, [])[:-1])
"""How PUSH and FETCH frames begin: the array header and the message name."""


Connect = Callable[[str, int], Awaitable[tuple[FrameReader, FrameWriter]]]
"""Opens a connection to a peer's sync port that is ready for frames (after any handshake)."""


class PushLink:
    """A kept-open connection to one peer's sync port for PUSH and FETCH, one request at a time."""

    def __init__(self, host: str, port: int, connect: Connect, timeout: float = IDLE_TIMEOUT):
        self.host, self.port, self.timeout = host, port, timeout
        self._connect = connect
        self._conn: tuple[FrameReader, FrameWriter] | None = None
        self._opened_at = 0.0
        self._lock = asyncio.Lock()

    async def request(self, frame: bytes) -> list[Any]:
        """Send one frame and return the decoded reply; a stale kept connection is retried once."""
        async with self._lock:
            try:
                return await self._exchange(frame)
            except (OSError, TimeoutError, FrameError):
                self.close()
                return await self._exchange(frame)

    @property
    def connected(self) -> bool:
        """True while a connection is kept open."""
        return self._conn is not None

    async def open(self) -> None:
        """Connect now, if not connected, rather than at the first request."""
        async with self._lock:
            await self._opened()

    @property
    def age(self) -> float:
        """Seconds since the kept connection was opened (0 without one)."""
        return time.monotonic() - self._opened_at if self._conn is not None else 0.0

    async def renew(self) -> None:
        """Replace the kept connection by a new one, opened before the old one is closed: the
        peer ends every connection at its session deadline, and no request should wait for a
        new connection then."""
        fresh = await self._ready()
        async with self._lock:
            self.close()
            self._conn, self._opened_at = fresh, time.monotonic()

    async def _opened(self) -> tuple[FrameReader, FrameWriter]:
        if self._conn is None:
            self._conn = await self._ready()
            self._opened_at = time.monotonic()
        return self._conn

    async def _ready(self) -> tuple[FrameReader, FrameWriter]:
        """A new connection that has told the peer what it is with an empty PUSH: else the
        peer, waiting for a session's first frame, would close a link opened ahead of its
        first write after `IDLE_TIMEOUT`, and that write would pay for a new one."""
        async with asyncio.timeout(self.timeout):
            reader, writer = await self._connect(self.host, self.port)
            try:
                await write_frame(writer, EMPTY_PUSH)
                m.decode_message(await read_frame(reader, idle_timeout=self.timeout))
            except BaseException:
                writer.close()
                raise
        return reader, writer

    async def _exchange(self, frame: bytes) -> list[Any]:
        reader, writer = await self._opened()
        try:
            await write_frame(writer, frame)
            return m.decode_message(await read_frame(reader, idle_timeout=self.timeout))
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Drop the connection (the next request opens a new one)."""
        if self._conn is not None:
            self._conn[1].close()
            self._conn = None


async def initiate(settings: SyncSettings, host: str, port: int) -> SessionOutcome:
    """Connect to a peer's sync port and run a session as the initiator."""
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(host, port), settings.idle_timeout
        )
    except (OSError, TimeoutError) as exc:
        return SessionOutcome(
            Role.INITIATOR, None, f"{NodeReason.CONNECT_FAILED}: {exc}", SessionLog()
        )
    return await drive(settings, Role.INITIATOR, reader, writer)
