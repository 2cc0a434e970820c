"""The sync port's gate: membership first, then bounded sessions (see `membership`, `limits`).

A connection is accepted into a pending slot (per host and in total) by the port's `door`, which
refuses most hostile connections before they get a stream; it must pass the handshake within
its timeout (membership, then the node id it claims), and only then takes a session slot
(per proven node id and in total) and runs a session under an overall deadline and a byte
budget. Each refusal is counted and logged by `Refusals`; a stranger, or a member claiming an id
that is not its own, never reaches the session code. After the handshake the connection is
sealed (`membership.exchange_keys`, `wire`): a message that does not authenticate or a stream
cut short ends it, and is counted and logged in `wire`. Running insecure (no cluster key) there
is no handshake and the wire is in clear: slots are held per remote address and node ids are
taken as declared.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from typing import TypeVar

from swarmconf.spec.kvgossip.session import Role, SessionLog

from . import memory
from .door import Door, Opening
from .frames import FrameReader, FrameWriter
from .identity import Directory, Identity
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
from .membership import (
    HANDSHAKE_TIMEOUT,
    MAGIC,
    OPENING_SIZE,
    ClusterKey,
    MembershipError,
    answer_membership,
    exchange_keys,
    open_handshake,
)
from .reasons import NodeReason
from .refusals import Refusals
from .sync import SessionOutcome, SyncSettings, drive

T = TypeVar("T")
Serve = Callable[[FrameReader, FrameWriter, bytes | None], Awaitable[SessionOutcome | None]]
"""What runs on an admitted connection, given the peer's proven node id (None if insecure): a
session (or, for the node, whatever the port serves)."""


class SyncGuard:
    """Admits sync connections for one node and opens its own with the same rules."""

    def __init__(
        self,
        settings: SyncSettings,
        key: ClusterKey | None,
        identity: Identity,
        directory: Directory,
        refusals: Refusals,
        *,
        deadline: float = SESSION_DEADLINE,
        budget: int = SESSION_BYTES,
    ) -> None:
        self.settings = settings
        self.key = key
        self.identity = identity
        self.directory = directory
        self.refusals = refusals
        self.wire = Refusals(what="sealed sync connection with")
        """Sealed connections refused for what arrived on them, by reason."""
        self.deadline = deadline
        self.budget = budget
        self.pending = Slots(MAX_PENDING, MAX_PENDING_PER_HOST, "pending handshakes")
        self.sessions = Slots(MAX_SESSIONS, MAX_SESSIONS_PER_PEER, "session slots")
        self.bytes_received = 0
        self._large = False

    def reader(self) -> BudgetedReader:
        """A fresh reader holding one connection to the byte budget."""
        return BudgetedReader(self.budget)

    def door(self, admit: Callable[[Opening], None]) -> Door:
        """The sync port's door for this guard's key: `admit` gets each complete opening (run
        `accept` on it, on a task of its own)."""
        return Door(
            self.pending,
            self.refusals,
            admit,
            magic=MAGIC if self.key is not None else b"",
            opening_size=OPENING_SIZE if self.key is not None else 0,
            timeout=HANDSHAKE_TIMEOUT,
        )

    async def accept(self, opening: Opening, serve: Serve) -> SessionOutcome | None:
        """Admit one connection the door handed on and `serve` it; None if it was refused."""
        try:
            budget, reader, writer, peer_id = await self._handshake(opening)
            owner = peer_id if peer_id is not None else opening.host
            label = peer_id.hex() if peer_id is not None else opening.host
            try:
                with self.sessions.hold(owner, label):
                    return await self._bounded(
                        Role.RESPONDER, budget, serve(reader, writer, peer_id)
                    )
            except SlotRefused:
                writer.close()
                raise
        except (SlotRefused, MembershipError) as exc:
            self.refusals.refuse(opening.address, exc.reason, exc.detail)
            return None
        finally:
            self._settle()

    async def _handshake(
        self, opening: Opening
    ) -> tuple[BudgetedReader, FrameReader, FrameWriter, bytes | None]:
        """The opening's stream (its raw reader, which counts the bytes, and its sealed ends)
        and the node id its peer proved; the pending slot is given back whatever happens."""
        try:
            try:
                reader, writer = await self._stream(opening)
            except OSError as exc:
                opening.sock.close()
                raise MembershipError(NodeReason.HANDSHAKE_FAILED, str(exc)) from exc
            try:
                return reader, *await self._answer(reader, writer, opening)
            except BaseException:
                writer.close()
                raise
        finally:
            self.pending.release(opening.host)

    async def _stream(self, opening: Opening) -> tuple[BudgetedReader, asyncio.StreamWriter]:
        """A stream on the opening's socket, its opening bytes already in the reader."""
        loop = asyncio.get_running_loop()
        reader = self.reader()
        transport, protocol = await loop.connect_accepted_socket(
            lambda: asyncio.StreamReaderProtocol(reader), opening.sock
        )
        reader.feed_data(opening.data)
        return reader, asyncio.StreamWriter(transport, protocol, reader, loop)

    async def connect(
        self, host: str, port: int, expect: bytes | None = None
    ) -> tuple[FrameReader, FrameWriter]:
        """A connection to a peer's sync port that has proved membership and node ids both ways.

        Raises `OSError` or `TimeoutError` if the peer cannot be reached, `MembershipError` if
        it does not hold the cluster key or does not prove the node id `expect`.
        """
        _, reader, writer, _ = await self._connect(host, port, expect)
        return reader, writer

    async def _connect(
        self, host: str, port: int, expect: bytes | None
    ) -> tuple[BudgetedReader, FrameReader, FrameWriter, bytes | None]:
        """`connect`, with the raw reader (which counts the bytes) and the node id the peer
        proved (None when running insecure)."""
        loop = asyncio.get_running_loop()
        reader = self.reader()
        protocol = asyncio.StreamReaderProtocol(reader)
        transport, _ = await asyncio.wait_for(
            loop.create_connection(lambda: protocol, host, port), self.settings.idle_timeout
        )
        writer = asyncio.StreamWriter(transport, protocol, reader, loop)
        if self.key is None:
            return reader, reader, writer, None
        try:
            proven = await open_handshake(
                self.key, self.identity, self.directory, reader, writer, expect
            )
            async with asyncio.timeout(HANDSHAKE_TIMEOUT):
                sealed = await exchange_keys(
                    self.key,
                    self.identity,
                    proven,
                    True,
                    reader,
                    writer,
                    self._report(f"{host}:{port}"),
                )
        except TimeoutError as exc:
            writer.close()
            raise MembershipError(
                NodeReason.HANDSHAKE_FAILED, f"no key exchange within {HANDSHAKE_TIMEOUT} s"
            ) from exc
        except MembershipError:
            writer.close()
            raise
        return reader, *sealed, proven.peer_id

    async def open(self, host: str, port: int, expect: bytes | None = None) -> SessionOutcome:
        """Connect to a peer's sync port, prove membership and run a session as initiator with
        the node `expect` (any node when None)."""
        try:
            budget, reader, writer, proven = await self._connect(host, port, expect)
        except (OSError, TimeoutError) as exc:
            return _failed(Role.INITIATOR, f"{NodeReason.CONNECT_FAILED}: {exc}")
        except MembershipError as exc:
            return _failed(Role.INITIATOR, f"{exc.reason}: {host}:{port}: {exc.detail}")
        return await self._bounded(
            Role.INITIATOR,
            budget,
            drive(self.settings, Role.INITIATOR, reader, writer, proven=proven),
        )

    async def _answer(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, opening: Opening
    ) -> tuple[FrameReader, FrameWriter, bytes | None]:
        """The connection's sealed ends and the peer's node id once it proved membership and
        id, by the opening's deadline; the bare ends and None when running insecure."""
        if self.key is None:
            return reader, writer, None
        proven = await answer_membership(
            self.key, self.identity, self.directory, reader, writer, opening.deadline
        )
        try:
            async with asyncio.timeout_at(opening.deadline):
                sealed = await exchange_keys(
                    self.key,
                    self.identity,
                    proven,
                    False,
                    reader,
                    writer,
                    self._report(opening.address),
                )
        except TimeoutError as exc:
            raise MembershipError(
                NodeReason.HANDSHAKE_FAILED, f"no key exchange within {HANDSHAKE_TIMEOUT} s"
            ) from exc
        return *sealed, proven.peer_id

    def _report(self, peer: str) -> Callable[[str, str], None]:
        """Counts and logs what refuses the sealed connection with `peer`."""
        return functools.partial(self.wire.refuse, peer)

    async def _bounded(
        self, role: Role, reader: BudgetedReader, session: Awaitable[T]
    ) -> T | SessionOutcome:
        try:
            async with asyncio.timeout(self.deadline):
                return await session
        except TimeoutError:
            return _failed(role, f"{NodeReason.SESSION_DEADLINE}: {self.deadline} s")
        finally:
            self.bytes_received += reader.received
            self._large |= reader.received >= memory.LARGE

    def _settle(self) -> None:
        """After a burst of large sessions, give their memory back once the last one ends."""
        if self._large and self.sessions.held == 0:
            self._large = False
            asyncio.get_running_loop().call_later(memory.SETTLE, memory.release)


def _failed(role: Role, error: str) -> SessionOutcome:
    return SessionOutcome(role, None, error, SessionLog())
