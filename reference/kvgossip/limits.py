"""What one sync connection and one peer may cost the node (notices: see `notices`).

- Before the handshake a connection holds a *pending* slot: at most `MAX_PENDING` in all and
  `MAX_PENDING_PER_HOST` from one address, each for at most the handshake timeout.
- After it, a session holds one of `MAX_SESSIONS` slots, at most `MAX_SESSIONS_PER_PEER` per
  authenticated node id, and ends at `SESSION_DEADLINE` or after `SESSION_BYTES` received.
  Push and fetch connections hold these slots too; of the connections that open a session
  (a `HELLO`), a node runs at most `MAX_SYNCS` at once, in either role, and one per peer.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Hashable, Iterator
from contextlib import contextmanager

from .frames import FrameError
from .reasons import NodeReason

MAX_PENDING = 512
MAX_PENDING_PER_HOST = 256
MAX_SESSIONS = 32
MAX_SESSIONS_PER_PEER = 4
MAX_SYNCS = 1
"""Sessions a node runs at once, in either role; a `HELLO` past them is refused
(`SESSION_LIMIT`), as is one from a peer already in a session with it (`PEER_LIMIT`), and its
sender tries again after its sweep's back-off. Every member that disagrees with a node may open
a session with it (all 31 others with a fresh node), and sessions that start from the same
difference move the same records again: a fresh node joining 31 holders of 100,000 keys was
sent 71.0 MiB by six at once for a 43 MiB store, 81.0 MiB by two at a limit of two, and 40.7
MiB by one at this one. The price: a member that holds a session open keeps the node's other
sessions waiting until it ends (at most `SESSION_DEADLINE`; pushes are not held up)."""
SESSION_DEADLINE = 30.0
SESSION_BYTES = 64 << 20


class SlotRefused(Exception):
    """No slot is free; `.reason` is `SESSION_LIMIT` or `PEER_LIMIT`."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


class Slots:
    """At most `total` holders at once, and at most `each` per owner."""

    def __init__(self, total: int, each: int, what: str) -> None:
        self.total = total
        self.each = each
        self.what = what
        self._held: Counter[Hashable] = Counter()

    @property
    def held(self) -> int:
        """Slots in use."""
        return sum(self._held.values())

    def take(self, owner: Hashable, label: str) -> None:
        """Take one slot for `owner`, or raise `SlotRefused`; `release` gives it back."""
        if self.held >= self.total:
            raise SlotRefused(NodeReason.SESSION_LIMIT, f"all {self.total} {self.what} in use")
        if self._held[owner] >= self.each:
            raise SlotRefused(
                NodeReason.PEER_LIMIT, f"{label} already holds {self.each} {self.what}"
            )
        self._held[owner] += 1

    def release(self, owner: Hashable) -> None:
        """Give back a slot `owner` took."""
        self._held[owner] -= 1
        if not self._held[owner]:
            del self._held[owner]

    @contextmanager
    def hold(self, owner: Hashable, label: str) -> Iterator[None]:
        """Hold one slot for `owner` during the block, or raise `SlotRefused`."""
        self.take(owner, label)
        try:
            yield
        finally:
            self.release(owner)


class BudgetedReader(asyncio.StreamReader):
    """A stream reader that fails the reads of a connection past `budget` bytes received.

    Counting happens as data arrives, so the budget holds whatever reads the session makes.
    """

    def __init__(self, budget: int) -> None:
        super().__init__()
        self.budget = budget
        self.received = 0
        self._source: asyncio.ReadTransport | None = None

    def set_transport(self, transport: asyncio.BaseTransport) -> None:
        super().set_transport(transport)
        if isinstance(transport, asyncio.ReadTransport):
            self._source = transport

    def feed_data(self, data: bytes) -> None:  # type: ignore[override]  # transports give bytes
        """Count incoming bytes; past the budget, stop reading the socket and fail the reader."""
        self.received += len(data)
        if self.received > self.budget:
            if self.exception() is None:
                self.set_exception(
                    FrameError(NodeReason.SESSION_BUDGET, f"more than {self.budget} bytes")
                )
                if self._source is not None:
                    self._source.pause_reading()
            return
        super().feed_data(data)
