"""What one sync connection, one peer and one notice source may cost the node.

- Before the handshake a connection holds a *pending* slot: at most `MAX_PENDING` in all and
  `MAX_PENDING_PER_HOST` from one address, each for at most the handshake timeout.
- After it, a session holds one of `MAX_SESSIONS` slots, at most `MAX_SESSIONS_PER_PEER` per
  authenticated node id, and ends at `SESSION_DEADLINE` or after `SESSION_BYTES` received.
- Change notices whose sessions apply nothing make their source wait, longer each time (up to
  `NOTICE_BACKOFF_MAX`), and coalesce meanwhile; so a flood of forged notices costs a few
  sessions, while notices of real writes are acted on at once.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager

from .frames import FrameError
from .reasons import NodeReason

MAX_PENDING = 512
MAX_PENDING_PER_HOST = 256
MAX_SESSIONS = 32
MAX_SESSIONS_PER_PEER = 4
SESSION_DEADLINE = 30.0
SESSION_BYTES = 64 << 20
NOTICE_BACKOFF = 0.25
NOTICE_BACKOFF_MAX = 8.0
MAX_NOTICE_SOURCES = 4096


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

    @contextmanager
    def hold(self, owner: Hashable, label: str) -> Iterator[None]:
        """Hold one slot for `owner` during the block, or raise `SlotRefused`."""
        if self.held >= self.total:
            raise SlotRefused(NodeReason.SESSION_LIMIT, f"all {self.total} {self.what} in use")
        if self._held[owner] >= self.each:
            raise SlotRefused(
                NodeReason.PEER_LIMIT, f"{label} already holds {self.each} {self.what}"
            )
        self._held[owner] += 1
        try:
            yield
        finally:
            self._held[owner] -= 1
            if not self._held[owner]:
                del self._held[owner]


class BudgetedReader(asyncio.StreamReader):
    """A stream reader that fails the reads of a connection past `budget` bytes received.

    Counting happens as data arrives, so the budget holds whatever reads the session makes.
    """

    def __init__(self, budget: int) -> None:
        super().__init__()
        self.budget = budget
        self.received = 0

    def feed_data(self, data: bytes) -> None:  # type: ignore[override]  # transports give bytes
        """Count incoming bytes; past the budget, stop buffering and fail the reader."""
        self.received += len(data)
        if self.received > self.budget:
            if self.exception() is None:
                self.set_exception(
                    FrameError(NodeReason.SESSION_BUDGET, f"more than {self.budget} bytes")
                )
            return
        super().feed_data(data)


class NoticePacer:
    """Back off from a notice source whose notices lead to nothing.

    A direct session that applied a record costs its source nothing: honest writers are never
    delayed. One that applied nothing (the notice was stale or forged) doubles the wait before
    that source's next notice is acted on, from `NOTICE_BACKOFF` up to `NOTICE_BACKOFF_MAX`;
    notices arriving meanwhile coalesce into one session when the wait is over.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._backoff: dict[bytes, float] = {}
        self._next: dict[bytes, float] = {}

    def wait_for(self, source: bytes) -> float:
        """Seconds until a session with `source` may start (0: now)."""
        return max(0.0, self._next.get(source, 0.0) - self._clock())

    def finished(self, source: bytes, applied: int) -> None:
        """Record how much a session that `source`'s notices caused applied."""
        if applied:
            self._backoff.pop(source, None)
            self._next.pop(source, None)
            return
        if len(self._backoff) >= MAX_NOTICE_SOURCES and source not in self._backoff:
            self._forget_idle()
        backoff = min(self._backoff.get(source, NOTICE_BACKOFF / 2) * 2, NOTICE_BACKOFF_MAX)
        self._backoff[source] = backoff
        self._next[source] = self._clock() + backoff

    def _forget_idle(self) -> None:
        now = self._clock()
        for source in [s for s, t in self._next.items() if t <= now]:
            del self._next[source]
            self._backoff.pop(source, None)
