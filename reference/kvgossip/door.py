"""The sync port's door: connections are accepted, and most refused, before they cost a stream.

Until a connection has sent the handshake's opening (`membership`: magic, nonce and node id,
40 bytes) it has no asyncio transport, stream or task: the door accepts it from the listening
socket (at most `ACCEPT_BATCH` per wake-up, so a storm cannot hold the event loop), takes a
pending slot for it before anything else (or closes it at once, `SESSION_LIMIT` or
`PEER_LIMIT`), and watches the bare socket for the opening. A connection that closes, sends
anything but the magic, or is still incomplete at the handshake timeout is closed and counted
as `HANDSHAKE_FAILED`; one timer serves all of them. So a reconnect storm or a crowd of idle
strangers costs an accept, a slot, a registration with the event loop and a few bytes each.
Only a complete opening gets a stream, handed on with its pending slot still held.

Without a cluster key there is no handshake: every admitted connection is handed on at once.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass, field

from .limits import SlotRefused, Slots
from .reasons import NodeReason
from .refusals import Refusals

ACCEPT_BATCH = 32
"""Connections accepted per wake-up of the listening socket."""
ACCEPT_RETRY = 1.0
"""Seconds the door stops accepting after accept() failed (out of file descriptors)."""

log = logging.getLogger("swarmconf.reference.kvgossip")


@dataclass
class Opening:
    """A connection that sent a complete opening (or any, without a key), still holding the
    pending slot of `host`: the handshake must end by `deadline` (event-loop time)."""

    sock: socket.socket
    host: str
    address: str
    deadline: float
    data: bytes = b""


@dataclass
class _Waiting:
    opening: Opening
    fd: int
    buffer: bytearray = field(default_factory=bytearray)


class Door:
    """Listens on the sync port and hands complete openings to `admit`, which must release
    the opening's pending slot when done with it."""

    def __init__(
        self,
        pending: Slots,
        refusals: Refusals,
        admit: Callable[[Opening], None],
        *,
        magic: bytes,
        opening_size: int,
        timeout: float,
    ) -> None:
        self.pending = pending
        self.refusals = refusals
        self.admit = admit
        self.magic = magic
        self.opening_size = opening_size
        self.timeout = timeout
        self.port = 0
        self._socks: list[socket.socket] = []
        self._waiting: dict[int, _Waiting] = {}
        self._sweeper: asyncio.TimerHandle | None = None

    def open(self, host: str, port: int, backlog: int) -> int:
        """Listen on every address of HOST at PORT (0: a free port, the same on each one);
        return the port."""
        loop = asyncio.get_running_loop()
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        for family, kind, proto, _, address in dict.fromkeys(infos):
            sock = socket.socket(family, kind, proto)
            self._socks.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind((address[0], self.port or address[1], *address[2:]))
            sock.listen(backlog)
            sock.setblocking(False)
            self.port = self.port or int(sock.getsockname()[1])
            loop.add_reader(sock.fileno(), self._on_accept, sock)
        return self.port

    def close(self) -> None:
        """Stop listening and close every connection still at the door."""
        loop = asyncio.get_running_loop()
        for sock in self._socks:
            loop.remove_reader(sock.fileno())
            sock.close()
        self._socks = []
        for waiting in list(self._waiting.values()):
            self._leave(waiting)
            waiting.opening.sock.close()
        if self._sweeper is not None:
            self._sweeper.cancel()

    @property
    def waiting(self) -> int:
        """Connections accepted whose opening has not arrived."""
        return len(self._waiting)

    def _on_accept(self, listening: socket.socket) -> None:
        for _ in range(ACCEPT_BATCH):
            try:
                conn, peer = listening.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:  # out of descriptors, or the like: pause, the backlog waits
                log.warning("sync port: accept failed (%s); retrying in %s s", exc, ACCEPT_RETRY)
                loop = asyncio.get_running_loop()
                loop.remove_reader(listening.fileno())
                loop.call_later(ACCEPT_RETRY, self._resume, listening)
                return
            self._arrived(conn, str(peer[0]), f"{peer[0]}:{peer[1]}")

    def _resume(self, listening: socket.socket) -> None:
        if listening in self._socks:
            asyncio.get_running_loop().add_reader(listening.fileno(), self._on_accept, listening)

    def _arrived(self, conn: socket.socket, host: str, address: str) -> None:
        try:
            self.pending.take(host, host)
        except SlotRefused as exc:
            conn.close()
            self.refusals.refuse(address, exc.reason, exc.detail)
            return
        conn.setblocking(False)
        loop = asyncio.get_running_loop()
        opening = Opening(conn, host, address, loop.time() + self.timeout)
        if self.opening_size == 0:
            self.admit(opening)
            return
        waiting = _Waiting(opening, conn.fileno())
        self._waiting[waiting.fd] = waiting
        loop.add_reader(waiting.fd, self._on_data, waiting)  # (an fd: a socket's repr is slow)
        if self._sweeper is None:
            self._sweeper = loop.call_at(opening.deadline, self._sweep)

    def _on_data(self, waiting: _Waiting) -> None:
        outcome = self._read(waiting)
        if outcome is not None:
            self._leave(waiting)
            self._conclude(waiting, outcome)

    def _read(self, waiting: _Waiting) -> str | None:
        """Read what has arrived: None while the opening is incomplete, "" once it is
        complete, else why the connection is refused."""
        try:
            data = waiting.opening.sock.recv(self.opening_size - len(waiting.buffer))
        except (BlockingIOError, InterruptedError):
            return None
        except OSError:
            data = b""
        if not data:
            return "closed during the handshake"
        waiting.buffer += data
        if not self.magic.startswith(bytes(waiting.buffer[: len(self.magic)])):
            return "no membership handshake"
        return "" if len(waiting.buffer) == self.opening_size else None

    def _conclude(self, waiting: _Waiting, refusal: str) -> None:
        """Hand a complete opening on (`refusal` empty), or close the connection and count it."""
        opening = waiting.opening
        if not refusal:
            opening.data = bytes(waiting.buffer)
            self.admit(opening)
            return
        opening.sock.close()
        self.pending.release(opening.host)
        self.refusals.refuse(opening.address, NodeReason.HANDSHAKE_FAILED, refusal)

    def _sweep(self) -> None:
        """Refuse the connections whose opening is overdue (they wait in arrival order)."""
        self._sweeper = None
        now = asyncio.get_running_loop().time()
        for waiting in list(self._waiting.values()):
            if waiting.opening.deadline > now:
                self._sweeper = asyncio.get_running_loop().call_at(
                    waiting.opening.deadline, self._sweep
                )
                return
            self._leave(waiting)
            self._conclude(waiting, f"no handshake within {self.timeout} s")

    def _leave(self, waiting: _Waiting) -> None:
        asyncio.get_running_loop().remove_reader(waiting.fd)
        del self._waiting[waiting.fd]
