"""The sync port's gate: membership first, then bounded sessions (see `membership`, `limits`).

A connection is accepted into a pending slot (per host and in total), must pass the handshake
within its timeout, and only then takes a session slot (per authenticated peer and in total)
and runs a session under an overall deadline and a byte budget. Each refusal is counted and
logged by `Refusals`; a stranger never reaches the session code.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from swarmconf.spec.kvgossip.session import Role, SessionLog

from . import memory
from .limits import (
    MAX_PENDING,
    MAX_PENDING_PER_HOST,
    MAX_SESSIONS,
    MAX_SESSIONS_PER_PEER,
    SESSION_BYTES,
    SESSION_DEADLINE,
    BudgetedReader,
    SlotRefused,
    Slots,
)
from .membership import ClusterKey, MembershipError, answer_handshake, open_handshake
from .reasons import NodeReason
from .refusals import Refusals
from .sync import SessionOutcome, SyncSettings, drive

T = TypeVar("T")
Serve = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[SessionOutcome | None]]
"""What runs on an admitted connection: a session (or, for the node, whatever the port serves)."""
Handshake = Callable[
    [ClusterKey, bytes, asyncio.StreamReader, asyncio.StreamWriter], Awaitable[bytes]
]


def peer_address(writer: asyncio.StreamWriter) -> tuple[str, str]:
    """The connection's remote host, and `host:port` for the log."""
    peer = writer.get_extra_info("peername")
    if isinstance(peer, tuple) and len(peer) >= 2:
        return str(peer[0]), f"{peer[0]}:{peer[1]}"
    return "?", "?"


class SyncGuard:
    """Admits sync connections for one node and opens its own with the same rules."""

    def __init__(
        self,
        settings: SyncSettings,
        key: ClusterKey | None,
        refusals: Refusals,
        *,
        deadline: float = SESSION_DEADLINE,
        budget: int = SESSION_BYTES,
    ) -> None:
        self.settings = settings
        self.key = key
        self.refusals = refusals
        self.deadline = deadline
        self.budget = budget
        self.pending = Slots(MAX_PENDING, MAX_PENDING_PER_HOST, "pending handshakes")
        self.sessions = Slots(MAX_SESSIONS, MAX_SESSIONS_PER_PEER, "session slots")
        self.bytes_received = 0
        self._large = False

    def reader(self) -> BudgetedReader:
        """A fresh reader holding one connection to the byte budget."""
        return BudgetedReader(self.budget)

    async def accept(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, serve: Serve
    ) -> SessionOutcome | None:
        """Admit one incoming connection and `serve` it; None if it was refused first."""
        host, address = peer_address(writer)
        try:
            with self.pending.hold(host, host):
                peer_id = await self._prove(reader, writer, answer_handshake)
            owner = peer_id if peer_id is not None else host
            label = peer_id.hex() if peer_id is not None else host
            with self.sessions.hold(owner, label):
                return await self._bounded(Role.RESPONDER, reader, serve(reader, writer))
        except (SlotRefused, MembershipError) as exc:
            self.refusals.refuse(address, exc.reason, exc.detail)
            writer.close()
            return None
        finally:
            self._settle()

    async def connect(
        self, host: str, port: int
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A connection to a peer's sync port that has proved membership both ways.

        Raises `OSError` or `TimeoutError` if the peer cannot be reached, `MembershipError` if
        it does not hold the cluster key.
        """
        loop = asyncio.get_running_loop()
        reader = self.reader()
        protocol = asyncio.StreamReaderProtocol(reader)
        transport, _ = await asyncio.wait_for(
            loop.create_connection(lambda: protocol, host, port), self.settings.idle_timeout
        )
        writer = asyncio.StreamWriter(transport, protocol, reader, loop)
        try:
            await self._prove(reader, writer, open_handshake)
        except MembershipError:
            writer.close()
            raise
        return reader, writer

    async def open(self, host: str, port: int) -> SessionOutcome:
        """Connect to a peer's sync port, prove membership and run a session as initiator."""
        try:
            reader, writer = await self.connect(host, port)
        except (OSError, TimeoutError) as exc:
            return _failed(Role.INITIATOR, f"{NodeReason.CONNECT_FAILED}: {exc}")
        except MembershipError as exc:
            return _failed(Role.INITIATOR, f"{exc.reason}: {host}:{port}: {exc.detail}")
        return await self._bounded(
            Role.INITIATOR, reader, drive(self.settings, Role.INITIATOR, reader, writer)
        )

    async def _prove(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        side: Handshake,
    ) -> bytes | None:
        """The peer's node id once it proved membership; None when running insecure."""
        if self.key is None:
            return None
        return await side(self.key, self.settings.node_id, reader, writer)

    async def _bounded(
        self, role: Role, reader: asyncio.StreamReader, session: Awaitable[T]
    ) -> T | SessionOutcome:
        try:
            async with asyncio.timeout(self.deadline):
                return await session
        except TimeoutError:
            return _failed(role, f"{NodeReason.SESSION_DEADLINE}: {self.deadline} s")
        finally:
            if isinstance(reader, BudgetedReader):
                self.bytes_received += reader.received
                self._large |= reader.received >= memory.LARGE

    def _settle(self) -> None:
        """After a burst of large sessions, give their memory back once the last one ends."""
        if self._large and self.sessions.held == 0:
            self._large = False
            asyncio.get_running_loop().call_later(memory.SETTLE, memory.release)


def _failed(role: Role, error: str) -> SessionOutcome:
    return SessionOutcome(role, None, error, SessionLog())
