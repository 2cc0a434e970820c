"""What change notices (`kvg-ch`) may cost the node, however many a member sends.

A notice is a hint that a writer holds a newer record; the record itself comes from the writer,
signed, so a forged notice can cost time but never change the store. Its cost is bounded in
three steps:

- `NoticeBucket`: at most `NOTICE_RATE` notices a second (bursts of `NOTICE_BURST`) are even
  decoded; the rest are dropped and counted (`NOTICE_RATE_LIMIT`). Pushes (K9) carry the honest
  writes, and the periodic state-query sweep makes good whatever a dropped notice announced.
- `PendingNotices`: the notices a node acts on wait per writer (a member alive in Serf; notices
  naming anyone else are dropped as `NOTICE_UNKNOWN_WRITER`), one entry per key, at most
  `MAX_PENDING_KEYS` of them: past that the writer is only marked for a session, which settles
  every key at once. One task per writer works through them: a few keys are fetched one by one
  (K10), more, or a fetch that does not settle its key, cost one session with the writer.
- `NoticePacer`: a writer whose notices led to nothing makes the node wait before acting on its
  next ones, longer each time; they coalesce meanwhile.

So a flood of forged notices naming one writer costs each node a dictionary update per notice
and a session with that writer every `NOTICE_BACKOFF_MAX` seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from .gossip import Change

NOTICE_RATE = 500.0
NOTICE_BURST = 500
MAX_PENDING_KEYS = 256
FETCH_LIMIT = 4
"""Pending keys of one writer fetched one by one; more cost a session instead."""
NOTICE_BACKOFF = 0.25
NOTICE_BACKOFF_MAX = 8.0
MAX_NOTICE_SOURCES = 4096


class NoticeBucket:
    """A token bucket: `rate` notices a second on average, `burst` at once."""

    def __init__(
        self,
        rate: float = NOTICE_RATE,
        burst: int = NOTICE_BURST,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._tokens = float(burst)
        self._at = clock()

    def take(self) -> bool:
        """Spend one token; False (the notice is to be dropped) if none is left."""
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._at) * self.rate)
        self._at = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True


class PendingNotices:
    """Notices not yet acted on, per writer: the newest announced position of each key."""

    def __init__(self, limit: int = MAX_PENDING_KEYS) -> None:
        self.limit = limit
        self._keys: dict[bytes, dict[str, Change]] = {}
        self._overflowed: set[bytes] = set()

    def add(self, change: Change) -> None:
        """Keep `change` (or an earlier notice's newer position for the same key); past the
        limit only mark its writer for a session."""
        keys = self._keys.setdefault(change.node_id, {})
        known = keys.get(change.key)
        if known is not None:
            if (change.ts, change.entry_hash) > (known.ts, known.entry_hash):
                keys[change.key] = change
        elif len(keys) < self.limit:
            keys[change.key] = change
        else:
            self._overflowed.add(change.node_id)

    def waiting(self, writer: bytes) -> bool:
        """Whether any notice naming `writer` waits."""
        return writer in self._keys

    def take(self, writer: bytes) -> tuple[list[Change], bool]:
        """Everything waiting for `writer`, and whether more came than were kept."""
        overflowed = writer in self._overflowed
        self._overflowed.discard(writer)
        return list(self._keys.pop(writer, {}).values()), overflowed


class NoticePacer:
    """Back off from a writer whose notices lead to nothing.

    A fetch or session that applied a record costs its writer nothing: honest writers are never
    delayed. One that applied nothing (the notices were stale or forged) doubles the wait before
    that writer's next notices are acted on, from `NOTICE_BACKOFF` up to `NOTICE_BACKOFF_MAX`;
    notices arriving meanwhile coalesce into one session when the wait is over.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._backoff: dict[bytes, float] = {}
        self._next: dict[bytes, float] = {}

    def wait_for(self, source: bytes) -> float:
        """Seconds until notices naming `source` may be acted on (0: now)."""
        return max(0.0, self._next.get(source, 0.0) - self._clock())

    def finished(self, source: bytes, applied: int) -> None:
        """Record how much acting on `source`'s notices applied."""
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
