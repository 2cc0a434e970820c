"""Range-based set reconciliation over sync items (kv-sync 3.3c; decisions K2-K4).

Items are `(ts, entry_hash)` pairs of every stored record, sorted as LWW orders them. Two sides
find the items one holds and the other lacks by comparing fingerprints of ranges of items:
equal ranges are skipped, a differing range is split into 16 (K3), and a range of fewer than
32 items is sent as its id list. The byte format is Negentropy protocol V1 (K2), so messages
are byte-deterministic and can be checked against other implementations of it.

A message is the version byte `0x61` and a run of ranges, each `bound || varint(mode) ||
payload`. A bound is `varint(ts encoding) || varint(len(prefix)) || prefix`; timestamps are
delta-encoded within one message, 0 meaning infinity. Modes: 0 skip, 1 fingerprint (16 bytes),
2 id list (`varint(count) || ids`). Every function here is pure.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field

from . import crypto
from .reasons import KvError, KvReason, require

Item = tuple[int, bytes]
"""`(ts, entry_hash)`: one stored record as reconciliation sees it."""

PROTOCOL_V1 = 0x61
ID_SIZE = 32
FINGERPRINT_SIZE = 16
BUCKETS = 16
ID_LIST_BELOW = 2 * BUCKETS
INFINITY = (1 << 64) - 1
MAX_MESSAGE_BYTES = 1 << 20
"""A message stops growing here and leaves the rest for the next round (K4)."""
_RESERVE = 200
"""Room kept under the limit for the closing range."""
_SPLIT_MAX = ID_LIST_BELOW * ID_SIZE + 64
"""The most one `_split` can write: 16 fingerprinted ranges, or an id list under 32 ids."""

SKIP, FINGERPRINT, ID_LIST = 0, 1, 2
_MOD = 1 << 256


def fingerprint(ids: Sequence[bytes]) -> bytes:
    """The fingerprint of a range: SHA-256(Σ ids as le256 mod 2^256 || varint(count))[:16]."""
    total = sum(int.from_bytes(i, "little") for i in ids) % _MOD
    return crypto.sha256(total.to_bytes(32, "little") + varint(len(ids)))[:FINGERPRINT_SIZE]


def varint(n: int) -> bytes:
    """Base-128 big-endian, the high bit set on every byte but the last (negentropy)."""
    out = [n & 0x7F]
    n >>= 7
    while n:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    return bytes(reversed(out))


@dataclass(frozen=True, slots=True)
class Bound:
    """A range's upper edge: a timestamp and the shortest id prefix that separates items."""

    ts: int
    prefix: bytes = b""

    def key(self) -> Item:
        """The bound as an item, its id padded with zeros."""
        return (self.ts, self.prefix.ljust(ID_SIZE, b"\0"))


ZERO = Bound(0)
END = Bound(INFINITY)


def minimal_bound(prev: Item, curr: Item) -> Bound:
    """The shortest bound above `prev` and not above `curr` (negentropy's getMinimalBound)."""
    if curr[0] != prev[0]:
        return Bound(curr[0])
    shared = 0
    while shared < ID_SIZE and prev[1][shared] == curr[1][shared]:
        shared += 1
    return Bound(curr[0], curr[1][: shared + 1])


@dataclass
class _Writer:
    """One outgoing message; timestamps are deltas against the previous bound written."""

    parts: list[bytes] = field(default_factory=lambda: [bytes([PROTOCOL_V1])])
    size: int = 1
    last_ts: int = 0

    def add(self, data: bytes) -> None:
        self.parts.append(data)
        self.size += len(data)

    def bound(self, bound: Bound) -> bytes:
        if bound.ts == INFINITY:
            self.last_ts = INFINITY
            ts = varint(0)
        else:
            ts = varint(bound.ts - self.last_ts + 1)
            self.last_ts = bound.ts
        return ts + varint(len(bound.prefix)) + bound.prefix

    def range(self, bound: Bound, mode: int, payload: bytes = b"") -> None:
        self.add(self.bound(bound) + varint(mode) + payload)

    def bytes(self) -> bytes:
        return b"".join(self.parts)


@dataclass
class _Reader:
    data: bytes
    pos: int = 0
    last_ts: int = 0

    def done(self) -> bool:
        return self.pos >= len(self.data)

    def take(self, n: int) -> bytes:
        require(self.pos + n <= len(self.data), KvReason.SESSION_BAD_MESSAGE, "recon truncated")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def varint(self) -> int:
        n = 0
        for _ in range(10):
            byte = self.take(1)[0]
            n = (n << 7) | (byte & 0x7F)
            if not byte & 0x80:
                require(n <= INFINITY, KvReason.SESSION_BAD_MESSAGE, "recon varint")
                return n
        raise KvError(KvReason.SESSION_BAD_MESSAGE, "recon varint too long")

    def bound(self) -> Bound:
        encoded = self.varint()
        ts = INFINITY if encoded == 0 else encoded - 1
        if self.last_ts == INFINITY or ts == INFINITY:
            self.last_ts = INFINITY
        else:
            self.last_ts = ts = ts + self.last_ts
            require(ts < INFINITY, KvReason.SESSION_BAD_MESSAGE, "recon timestamp")
        length = self.varint()
        require(length <= ID_SIZE, KvReason.SESSION_BAD_MESSAGE, "recon bound prefix")
        return Bound(self.last_ts if ts != INFINITY else INFINITY, self.take(length))


@dataclass
class Step:
    """What one side makes of a peer's message."""

    reply: bytes | None
    """The message to send back; None when the initiator has nothing left to ask (done)."""
    have: list[bytes] = field(default_factory=list)
    """Initiator only: ids held here and missing at the peer, in item order."""
    need: list[bytes] = field(default_factory=list)
    """Initiator only: ids the peer holds and this side lacks, in the peer's order."""


def _ids(items: Sequence[Item], lower: int, upper: int) -> list[bytes]:
    return [item[1] for item in items[lower:upper]]


def _split(items: Sequence[Item], lower: int, upper: int, bound: Bound, out: _Writer) -> None:
    """Describe items[lower:upper] as one id list, or as 16 fingerprinted buckets (K3)."""
    count = upper - lower
    if count < ID_LIST_BELOW:
        ids = _ids(items, lower, upper)
        out.range(bound, ID_LIST, varint(len(ids)) + b"".join(ids))
        return
    per_bucket, extra = divmod(count, BUCKETS)
    curr = lower
    for i in range(BUCKETS):
        size = per_bucket + (1 if i < extra else 0)
        digest = fingerprint(_ids(items, curr, curr + size))
        curr += size
        edge = bound if curr == upper else minimal_bound(items[curr - 1], items[curr])
        out.range(edge, FINGERPRINT, digest)


def initiate(items: Sequence[Item]) -> bytes:
    """The initiator's first message: the whole set described as `_split` does (a few KB)."""
    out = _Writer()
    _split(items, 0, len(items), END, out)
    return out.bytes()


def step(
    items: Sequence[Item], message: bytes, initiator: bool, limit: int = MAX_MESSAGE_BYTES
) -> Step:
    """Answer one peer message over the sorted snapshot `items` (negentropy's reconcile).

    A reply that would pass `limit` stops early and fingerprints everything after the last
    range it answered, leaving that to the next round (K4); it always answers at least one
    range, so every round makes progress. Raises `KvError(
    SESSION_BAD_MESSAGE)` for anything that is not a well-formed V1 message with increasing
    bounds.
    """
    reader = _Reader(message)
    require(reader.take(1)[0] == PROTOCOL_V1, KvReason.SESSION_BAD_MESSAGE, "recon version")
    out, result = _Writer(), Step(None)
    prev_bound, prev_index, skipping, answered = ZERO, 0, False, False
    budget = limit - _RESERVE

    def flush_skip() -> None:
        nonlocal skipping
        if skipping:
            skipping = False
            out.range(prev_bound, SKIP)

    def rest_from(index: int) -> Step:
        out.range(END, FINGERPRINT, fingerprint(_ids(items, index, len(items))))
        return Step(out.bytes(), result.have, result.need)

    while not reader.done():
        bound = reader.bound()
        mode = reader.varint()
        require(bound.key() > prev_bound.key(), KvReason.SESSION_BAD_MESSAGE, "recon order")
        lower = prev_index
        upper = bisect_left(items, bound.key(), lo=lower)
        if mode == SKIP:
            skipping = True
        elif mode == FINGERPRINT:
            their_digest = reader.take(FINGERPRINT_SIZE)
            if their_digest == fingerprint(_ids(items, lower, upper)):
                skipping = True
            else:
                flush_skip()
                if answered and out.size + _SPLIT_MAX > budget:
                    return rest_from(lower)
                _split(items, lower, upper, bound, out)
                answered = True
        elif mode == ID_LIST:
            count = reader.varint()
            require(count * ID_SIZE <= len(message), KvReason.SESSION_BAD_MESSAGE, "recon ids")
            listed = [reader.take(ID_SIZE) for _ in range(count)]
            ours = _ids(items, lower, upper)
            if initiator:
                skipping = True
                their_ids, mine = set(listed), set(ours)
                result.have += [i for i in ours if i not in their_ids]
                result.need += [i for i in listed if i not in mine]
            else:
                flush_skip()
                room = max(1, (budget - out.size - 60) // ID_SIZE)
                if len(ours) > room:
                    # Answer the first ids that fit; the rest is fingerprinted for next round.
                    cut = lower + room
                    out.range(Bound(*items[cut]), ID_LIST, varint(room) + b"".join(ours[:room]))
                    return rest_from(cut)
                out.range(bound, ID_LIST, varint(len(ours)) + b"".join(ours))
        else:
            raise KvError(KvReason.SESSION_BAD_MESSAGE, f"recon mode {mode}")
        prev_index, prev_bound = upper, bound
    if initiator and out.size == 1:
        return Step(None, result.have, result.need)
    return Step(out.bytes(), result.have, result.need)


def sorted_items(items: Sequence[Item]) -> list[Item]:
    """Items in reconciliation order, checking each id's size."""
    require(all(len(i[1]) == ID_SIZE for i in items), KvReason.SESSION_BAD_MESSAGE, "id size")
    return sorted(items)
