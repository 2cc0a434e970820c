"""A deterministic discrete-event scheduler: simulated milliseconds, ties broken by insertion."""

from __future__ import annotations

import heapq
from collections.abc import Callable

Action = Callable[[], None]


class Scheduler:
    """Runs actions in time order; `now` is the simulated time in ms."""

    def __init__(self) -> None:
        self.now = 0
        self._queue: list[tuple[int, int, Action]] = []
        self._seq = 0
        self.executed = 0

    def at(self, when: int, action: Action) -> None:
        """Run `action` at time `when` (never before now)."""
        self._seq += 1
        heapq.heappush(self._queue, (max(when, self.now), self._seq, action))

    def after(self, delay: int, action: Action) -> None:
        """Run `action` `delay` ms from now."""
        self.at(self.now + delay, action)

    def run_until(self, limit: int, stop: Callable[[], bool] = lambda: False) -> None:
        """Run events up to time `limit`, or until `stop()` holds after an event."""
        queue = self._queue
        while queue and queue[0][0] <= limit:
            self.now, _, action = heapq.heappop(queue)
            action()
            self.executed += 1
            if stop():
                return
        self.now = max(self.now, limit)
