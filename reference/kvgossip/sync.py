"""Sync sessions on TCP: the spec's sans-I/O `Session` driven over length-prefixed frames.

Each frame the peer sends is handed to the session inside one storage transaction, so whatever
the frame changes (a record with its chain, revocations and the purges they cause) is atomic.
A frame that is oversize, malformed or arrives out of turn ends the session with a reason code;
the connection is closed and the store keeps every record fully applied before it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from swarmconf.spec.kvgossip.messages import MAX_FRAME_BYTES
from swarmconf.spec.kvgossip.reasons import KvReason
from swarmconf.spec.kvgossip.session import Role, Session, SessionLog

from .frames import IDLE_TIMEOUT, FrameError, read_frame, write_frame
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


async def drive(
    settings: SyncSettings,
    role: Role,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
) -> SessionOutcome:
    """Run one session to its end on an open connection, then close the connection."""
    store = settings.store
    session = Session(
        role,
        store,
        settings.root,
        settings.node_id,
        skew_ms=settings.skew_ms,
        max_loops=settings.max_loops,
    )
    error: str | None = None
    try:
        with store.transaction():
            outgoing = session.start(settings.clock())
        while True:
            for frame in outgoing:
                await write_frame(writer, frame, max_size=MAX_FRAME_BYTES)
            if session.done:
                break
            try:
                frame = await read_frame(
                    reader, max_size=MAX_FRAME_BYTES, idle_timeout=settings.idle_timeout
                )
            except FrameError as exc:
                if exc.reason == KvReason.SESSION_TIMEOUT:
                    session.timeout()
                else:
                    error = exc.reason
                break
            with store.transaction():
                outgoing = session.receive(frame, settings.clock())
    except FrameError as exc:
        error = exc.reason
    except Exception:  # a bug must cost one session, never the node or the store
        log.exception("sync session failed")
        error = NodeReason.INTERNAL_ERROR
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
    if session.error is not None:
        error = session.error.value
    return SessionOutcome(role, session.peer_id, error, session.log)


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
