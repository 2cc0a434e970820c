"""How a node's sweeps, timers and relays scale with the member count (notes 3.5, K9).

- A sweep runs sessions with at most `SWEEP_SESSIONS` peers, the nearest whose hashes differ,
  and sweeps again after its back-off; when the local store changed while the query ran, the
  answers are stale and it queries again instead (a writer's sweep once dialled every member).
- The state query waits `query_timeout` per decade of members, Serf's own rule
  (GossipInterval x QueryTimeoutMult x ceil(log10(N + 1))): 1 s up to 9 members, 2 s to 99,
  3 s to 999, 4 s at 1,000.
- The periodic sweep comes every `resync_interval` up to `RESYNC_MEMBERS` members and
  `resync_interval x N / RESYNC_MEMBERS` past that, so the cluster as a whole sends about as
  many state queries per second at any size (each query reaches every member, and any member
  that differs from the querier answers it and is synced).
- A record pushed here is relayed the first time it arrives, new or already stored (fetched
  after its change event won the race with the push); `Relayed` remembers the last
  `RELAYED_LIMIT` versions relayed so a second push of one is not.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from typing import TypeVar

SWEEP_SESSIONS = 3
"""Sessions one sweep runs at most."""
RESYNC_MEMBERS = 32
"""Members up to which the periodic sweep keeps `resync_interval`."""
RELAYED_LIMIT = 4096
"""Record versions a node remembers having relayed."""

P = TypeVar("P")


def query_timeout(base: float, members: int) -> float:
    """The state query's timeout for `members` members (this node included)."""
    return base * max(1, math.ceil(math.log10(members + 1)))


def resync_interval(base: float, members: int) -> float:
    """The time between periodic sweeps for `members` members (this node included)."""
    return base * max(1.0, members / RESYNC_MEMBERS)


def sweep_sessions(nearest_differing: Sequence[P], changed: bool) -> list[P]:
    """Whom a sweep runs sessions with: the nearest `SWEEP_SESSIONS` of the peers whose hashes
    differ, or nobody when the local store `changed` since the query (query again)."""
    return [] if changed else list(nearest_differing[:SWEEP_SESSIONS])


class Relayed:
    """The record versions, `(key, ts, entry_hash)`, this node relayed last (a bounded set)."""

    def __init__(self, limit: int = RELAYED_LIMIT) -> None:
        self._limit = limit
        self._seen: OrderedDict[tuple[str, int, bytes], None] = OrderedDict()

    def first(self, version: tuple[str, int, bytes]) -> bool:
        """Whether `version` is new here, remembering it (forgetting the oldest past the limit)."""
        if version in self._seen:
            return False
        self._seen[version] = None
        if len(self._seen) > self._limit:
            self._seen.popitem(last=False)
        return True
