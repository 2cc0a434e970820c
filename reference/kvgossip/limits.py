"""What one sync connection, one peer and one notice source may cost the node.

- Before the handshake a connection holds a *pending* slot: at most `MAX_PENDING` in all and
  `MAX_PENDING_PER_HOST` from one address, each for at most the handshake timeout.
- After it, a session holds one of `MAX_SESSIONS` slots, at most `MAX_SESSIONS_PER_PEER` per
  authenticated node id, and ends at `SESSION_DEADLINE` or after `SESSION_BYTES` received.
- Change notices from one source start at most one direct session per `NOTICE_INTERVAL`; the
  rest wait and coalesce, so a flood of notices costs a bounded number of sessions.
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
NOTICE_INTERVAL = 0.25


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
    """One direct session per source per `interval`; notices in between wait their turn."""

    def __init__(
        self, interval: float = NOTICE_INTERVAL, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.interval = interval
        self._clock = clock
        self._last: dict[bytes, float] = {}

    def wait_for(self, source: bytes) -> float:
        """Seconds until a session with `source` may start (0: now)."""
        last = self._last.get(source)
        if last is None:
            return 0.0
        return max(0.0, last + self.interval - self._clock())

    def started(self, source: bytes) -> None:
        """Record that a session with `source` starts now; forget sources long idle."""
        now = self._clock()
        self._last[source] = now
        if len(self._last) > 4096:
            self._last = {s: t for s, t in self._last.items() if now - t < self.interval}
