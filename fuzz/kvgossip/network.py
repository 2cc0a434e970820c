"""The simulated network: seeded per-link latency, loss, duplication, reordering, partitions."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .events import Scheduler


@dataclass
class Faults:
    """Datagram fault rates (Serf's UDP gossip); session streams are TCP and only break."""

    loss: float = 0.0
    duplicate: float = 0.0
    jitter_ms: int = 0
    """Extra uniform delay per datagram: reorders datagrams on one link."""
    stream_loss: float = 0.0
    """Chance that a stream frame is lost because its connection breaks (nothing after it on
    that connection arrives)."""


@dataclass
class Traffic:
    """What each node sent: messages and bytes by (node, kind). Sends that a fault loses still
    count (they left the sender); frames a cut link refuses do not."""

    messages: Counter[tuple[str, str]] = field(default_factory=Counter)
    bytes: Counter[tuple[str, str]] = field(default_factory=Counter)

    def add(self, node: str, kind: str, size: int, count: int = 1) -> None:
        self.messages[(node, kind)] += count
        self.bytes[(node, kind)] += size * count


@dataclass
class Network:
    """Links between named nodes with a base latency each, and a partition state."""

    scheduler: Scheduler
    rng: random.Random
    faults: Faults
    latency: Mapping[tuple[str, str], int] = field(default_factory=dict)
    groups: list[frozenset[str]] = field(default_factory=list)
    """Current partition: nodes in different groups cannot reach each other (empty: none)."""
    down: set[str] = field(default_factory=set)
    """Nodes out of the cluster: nothing reaches them and nothing they send arrives."""
    traffic: Traffic = field(default_factory=Traffic)

    def reachable(self, a: str, b: str) -> bool:
        """True iff `a` and `b` are both up and on the same side of the current partition."""
        if a == b:
            return True
        if a in self.down or b in self.down:
            return False
        return not self.groups or any(a in g and b in g for g in self.groups)

    def rtt_ms(self, a: str, b: str) -> int:
        """The round-trip time Serf's coordinates would estimate."""
        return 0 if a == b else 2 * self.latency[(a, b)]

    def datagram(
        self, src: str, dst: str, deliver: Callable[[], None], size: int = 0, kind: str = ""
    ) -> None:
        """Send one datagram: maybe lost, maybe duplicated, jittered; dropped if partitioned.
        A `kind` counts it as `size` bytes sent by `src`."""
        if kind:
            self.traffic.add(src, kind, size)
        copies = 2 if self.rng.random() < self.faults.duplicate else 1
        for _ in range(copies):
            if src != dst and self.rng.random() < self.faults.loss:
                continue
            delay = self._delay(src, dst)
            self.scheduler.after(delay, self._if_reachable(src, dst, deliver))

    def stream(
        self, src: str, dst: str, deliver: Callable[[], None], size: int = 0, kind: str = ""
    ) -> bool:
        """Send one in-order stream frame; False (and nothing sent) if the link is cut. A `kind`
        counts it as `size` bytes sent by `src`."""
        if not self.reachable(src, dst):
            return False
        if kind:
            self.traffic.add(src, kind, size)
        self.scheduler.after(self.latency[(src, dst)], self._if_reachable(src, dst, deliver))
        return True

    def after(self, src: str, dst: str, delay: int, deliver: Callable[[], None]) -> None:
        """Deliver after `delay` ms if `src` still reaches `dst` then (relayed gossip: its
        retransmissions mask datagram loss)."""
        self.scheduler.after(delay, self._if_reachable(src, dst, deliver))

    def _delay(self, src: str, dst: str) -> int:
        base = 0 if src == dst else self.latency[(src, dst)]
        return base + (self.rng.randint(0, self.faults.jitter_ms) if self.faults.jitter_ms else 0)

    def _if_reachable(self, src: str, dst: str, deliver: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            if self.reachable(src, dst):
                deliver()

        return run
