"""Fault schedules: which fault hits which nodes when, drawn from a seed (so a run repeats).

One fault at a time, each followed by a short calm: a partition (`majority`: a minority cut
from the rest; `bridge`: two sides cut from each other but both still linked to one node in
the middle; `isolate`: one node alone), a `pause` of one node and its Serf agent
(SIGSTOP, then SIGCONT), a `crash` (SIGKILL of both, then a restart on the same data), or a
`skew`: the node restarted with its clock moved by up to `MAX_SKEW` seconds (under `faketime`),
then restarted on the true time. `MAX_SKEW` keeps any two clocks within the spec's allowed skew
of each other.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from swarmconf.spec.kvgossip.state import DEFAULT_SKEW_MS

KINDS = ("majority", "bridge", "isolate", "pause", "crash", "skew")
PARTITIONS = ("majority", "bridge", "isolate")
MAX_SKEW = DEFAULT_SKEW_MS / 1000 / 2 - 1
"""Seconds a clock may be moved: two nodes skewed opposite ways stay within the allowed skew."""


@dataclass(frozen=True)
class Fault:
    """One fault: `kind` on `nodes` (the cut-off side, the bridge, or the node hit) from
    `start` for `duration` seconds after the schedule begins; `skew` in seconds."""

    kind: str
    start: float
    duration: float
    nodes: tuple[int, ...]
    skew: float = 0.0

    def describe(self, size: int) -> str:
        """One line for the report."""
        names = ", ".join(f"n{i}" for i in self.nodes)
        rest = ", ".join(f"n{i}" for i in range(size) if i not in self.nodes)
        if self.kind == "majority":
            return f"partition: {names} | {rest}"
        if self.kind == "isolate":
            return f"isolate {names}"
        if self.kind == "bridge":
            bridge, *side = self.nodes
            left = ", ".join(f"n{i}" for i in side)
            right = ", ".join(f"n{i}" for i in range(size) if i != bridge and i not in side)
            return f"bridge n{bridge} between {left} | {right}"
        if self.kind == "skew":
            return f"skew {names} by {self.skew:+.1f} s"
        return f"{self.kind} {names}"


def draw(
    rng: random.Random, size: int, length: float, kinds: tuple[str, ...] = KINDS
) -> list[Fault]:
    """Faults one after another for about `length` seconds on `size` nodes (3 or more)."""
    faults, now = [], rng.uniform(0.3, 1.0)
    while now < length:
        kind = rng.choice(kinds)
        duration = rng.uniform(1.5, 4.0)
        faults.append(_fault(rng, kind, size, now, duration))
        now += duration + rng.uniform(0.5, 1.5)
    return faults


def _fault(rng: random.Random, kind: str, size: int, start: float, duration: float) -> Fault:
    nodes = list(range(size))
    rng.shuffle(nodes)
    if kind == "majority":
        return Fault(kind, start, duration, tuple(sorted(nodes[: (size - 1) // 2])))
    if kind == "bridge":
        bridge, *others = nodes
        side = tuple(sorted(others[: rng.randint(1, len(others) - 1)]))
        return Fault(kind, start, duration, (bridge, *side))
    skew = rng.choice((-1, 1)) * rng.uniform(2.0, MAX_SKEW) if kind == "skew" else 0.0
    return Fault(kind, start, duration, (nodes[0],), round(skew, 1))
