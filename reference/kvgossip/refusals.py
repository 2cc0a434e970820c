"""Refused connections, counted and logged so an operator sees an attack without drowning in it.

Every refusal is counted under its reason code (shown by `kv status` and as a Prometheus
counter). The first refusal of each reason in a `LOG_INTERVAL` window is logged at WARNING with
the peer's address, the reason and its detail; the others in that window are only counted, and
the next line says how many were left out.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable

LOG_INTERVAL = 10.0

log = logging.getLogger("swarmconf.reference.kvgossip")


class Refusals:
    """Counters of refused connections by reason, with a rate-limited WARNING log."""

    def __init__(
        self,
        interval: float = LOG_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
        *,
        what: str = "sync connection from",
    ) -> None:
        self.what = what
        self.counts: Counter[str] = Counter()
        self.interval = interval
        self._clock = clock
        self._logged_at: dict[str, float] = {}
        self._suppressed: Counter[str] = Counter()

    def refuse(self, peer: str, reason: str, detail: str) -> None:
        """Count one refusal and log it unless this reason was logged within the interval."""
        self.counts[reason] += 1
        now = self._clock()
        last = self._logged_at.get(reason)
        if last is not None and now - last < self.interval:
            self._suppressed[reason] += 1
            return
        self._logged_at[reason] = now
        more = self._suppressed.pop(reason, 0)
        extra = f" ({more} more since the last line)" if more else ""
        log.warning("refused %s %s: %s: %s%s", self.what, peer, reason, detail, extra)
