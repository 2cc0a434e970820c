"""Whom a node pushes a record to (K9), so that a write reaches each member about once.

Up to `PUSH_FANOUT` peers, the writer pushes to every one of them and nobody relays. Past
that (where every node relaying to its own nearest would send each record N x `PUSH_FANOUT`
times, piled on the members near many others), a push travels down a binomial tree over a
ring: the members (every alive node, this one included) stand in node-id order, every node
sees the same ring, and

- the writer pushes to the members 1, 2, 4, ... places after it (fewer than N: log2 N pushes);
- a member reached from `d` places back is given the `span = min(d, N - d)` places from itself
  onward (itself included), and relays to the members 1, 2, 4, ... places after it below its
  span.

The spans tile the ring, so each member is sent the record once, `ceil(log2 N)` hops from the
writer, and a node sends at most `ceil(log2 N)` pushes for one write. A push that fails is
handed down: its sender pushes to the members the failed one would have relayed to. Members
whose views of the ring differ for a while send some records twice (a known record is never
relayed) or miss some, which the change event and fetch (K10) make good.
"""

from __future__ import annotations

from dataclasses import dataclass

PUSH_FANOUT = 8
"""Peers a writer pushes to directly (all of them, up to this many; K9)."""


@dataclass(frozen=True)
class Target:
    """A member to push to: `offset` places after this node on the ring, given `span` places
    from itself onward to relay to."""

    offset: int
    span: int


def _below(offset: int, span: int) -> list[Target]:
    """The members a member at `offset` with `span` relays to, as offsets from here."""
    targets, step = [], 1
    while step < span:
        targets.append(Target(offset + step, min(step, span - step)))
        step *= 2
    return targets


def plan(size: int, distance: int | None) -> list[Target]:
    """Where a node pushes a record on a ring of `size` members: as its writer (`distance`
    None), or having received it from the member `distance` places back; the farthest first,
    as it has the most to relay."""
    if size <= 1:
        return []
    if distance is None:
        targets = _below(0, size)
    elif 0 < distance < size:
        targets = _below(0, min(distance, size - distance))
    else:
        return []
    return sorted(targets, key=lambda t: -t.span)


def handed_down(target: Target) -> list[Target]:
    """Where to push instead when the push to `target` failed: its own targets."""
    return _below(target.offset, target.span)


@dataclass(frozen=True)
class Ring:
    """The members in node-id order, seen from one of them."""

    ids: tuple[bytes, ...]
    me: int

    @classmethod
    def of(cls, me: bytes, peers: list[bytes]) -> Ring:
        ids = tuple(sorted({me, *peers}))
        return cls(ids, ids.index(me))

    @property
    def size(self) -> int:
        return len(self.ids)

    def at(self, offset: int) -> bytes:
        """The member `offset` places after this node."""
        return self.ids[(self.me + offset) % self.size]

    def distance(self, sender: bytes) -> int | None:
        """How many places back `sender` stands, or None if it is not on the ring."""
        if sender not in self.ids:
            return None
        return (self.me - self.ids.index(sender)) % self.size
