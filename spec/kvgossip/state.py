"""Applying records and revocations to a store (notes 2.2, 3.5; table rows 15, 21, 22, 31, 32).

The decision logic is pure (`judge_record`, `judge_revocation`); `apply_record` and
`apply_revocation` run it against any object with the `Store` interface and perform the one
resulting change. Local writes and remote records go through the same functions. A node wraps
each call in one storage transaction.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from .chain import Revoked, authorize
from .grants import Revocation, decode_revocation, grant_id_of
from .reasons import KvError, KvReason
from .records import Record, decode_record, lww_wins
from .treehash import revset_hash, tree_hash_of

SyncItem = tuple[int, bytes]
"""`(ts, entry_hash)` of one stored record, in the order LWW compares records."""

DEFAULT_SKEW_MS = 30_000


class Outcome(StrEnum):
    """What happened to an offered record."""

    ACCEPTED = "accepted"
    """Stored: it beat the local record (or there was none)."""
    AGREE = "agree"
    """Identical `(ts, entry_hash)` to the local record: nothing to do."""
    STALE = "stale"
    """LWW-older than the local record: refused, the local record should go back."""
    REJECTED = "rejected"
    """Invalid or unauthorised: refused for good."""
    DEFERRED = "deferred"
    """Too far in the future for the local clock: not stored now, may be offered again later."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome for one offered record, with what a sync RESULT needs to carry."""

    outcome: Outcome
    reason: KvReason | None = None
    record: Record | None = None
    """The record to store when ACCEPTED, carrying only the chain that authorised it."""
    revoked_ids: tuple[bytes, ...] = ()
    """When REVOKED: the revoked grants in the record's pool, whose revocations go back."""


class Store(Protocol):
    """The storage a node, a simulation or a test provides to the spec."""

    def get(self, key: str) -> Record | None:
        """The record stored for `key`, if any."""

    def put(self, record: Record) -> None:
        """Store `record` for its key, replacing any other."""

    def delete(self, key: str) -> None:
        """Remove the record of `key` (purge, not a tombstone)."""

    def get_by_entry_hash(self, entry_hash: bytes) -> Record | None:
        """The stored record whose entry hash this is, if any."""

    def sync_items(self) -> list[SyncItem]:
        """Every stored record's `(ts, entry_hash)`, sorted: a session's snapshot (K6)."""

    def count(self) -> int:
        """How many records are stored (tombstones included)."""

    def keys_with_grant(self, grant_id: bytes) -> list[str]:
        """The keys whose stored chain contains `grant_id`."""

    def revoked_ids(self) -> Revoked:
        """The ids of every revoked grant known here."""

    def get_revocation(self, grant_id: bytes) -> Revocation | None:
        """The stored revocation of `grant_id`, if any."""

    def add_revocation(self, revocation: Revocation) -> None:
        """Store a revocation (forever: revocations are never garbage-collected)."""

    def tree_hash(self) -> bytes:
        """`treehash.tree_hash` over the stored records (K1)."""

    def revset_hash(self) -> bytes:
        """`treehash.revset_hash` over the stored revocations."""


def check_time(ts: int, now_ms: int, skew_ms: int) -> KvReason | None:
    """Defer a record stamped beyond the local clock plus the skew (table row 22)."""
    return KvReason.FUTURE_TIMESTAMP if ts > now_ms + skew_ms else None


def judge_record(
    record: Record,
    local: Record | None,
    revoked: Revoked,
    root: bytes,
    now_ms: int,
    skew_ms: int = DEFAULT_SKEW_MS,
) -> Verdict:
    """Decide what to do with a decoded record given the local one (rows 21, 22, 31).

    Order: LWW against the local record first (equal is AGREE, older is STALE), then chain
    authorisation under the revocation set, then the clock-skew deferral.
    """
    # Verify the record is LWW-newer than the local one
    if local is not None and local.lww_key == record.lww_key:
        return Verdict(Outcome.AGREE)
    if not lww_wins(record, local):
        return Verdict(Outcome.STALE, KvReason.STALE)
    # Verify a chain authorises the signer for the key at the record's time
    auth = authorize(record.key, record.ts, record.signer, record.chain, root, revoked)
    if auth.chain is None:
        return Verdict(Outcome.REJECTED, auth.reason, revoked_ids=auth.revoked_ids)
    # Verify the record is not too far in the future
    late = check_time(record.ts, now_ms, skew_ms)
    if late is not None:
        return Verdict(Outcome.DEFERRED, late)
    return Verdict(Outcome.ACCEPTED, record=record.with_chain(auth.chain))


def apply_record(
    store: Store, record: Record, root: bytes, now_ms: int, skew_ms: int = DEFAULT_SKEW_MS
) -> Verdict:
    """Judge a decoded record against the store and store it when accepted."""
    verdict = judge_record(
        record, store.get(record.key), store.revoked_ids(), root, now_ms, skew_ms
    )
    if verdict.record is not None:
        store.put(verdict.record)
    return verdict


def receive_record(
    store: Store, data: bytes, root: bytes, now_ms: int, skew_ms: int = DEFAULT_SKEW_MS
) -> Verdict:
    """Decode record bytes and apply them; a malformed record is REJECTED, never raised."""
    try:
        record = decode_record(data)
    except KvError as err:
        return Verdict(Outcome.REJECTED, err.reason)
    return apply_record(store, record, root, now_ms, skew_ms)


@dataclass(frozen=True, slots=True)
class RevocationVerdict:
    """The outcome for one offered revocation."""

    reason: KvReason | None
    """Why it was refused, or None."""
    revocation: Revocation | None = None
    new: bool = False
    """True iff the revocation was not known before."""
    purged: tuple[str, ...] = field(default=())
    """Keys whose stored record lost its authority and was removed (row 15)."""


def judge_revocation(data: bytes, known: Revoked, root: bytes) -> RevocationVerdict:
    """Decode and check a revocation; a known one changes nothing (notes section 5, case 24)."""
    try:
        revocation = decode_revocation(data, root)
    except KvError as err:
        return RevocationVerdict(err.reason)
    return RevocationVerdict(None, revocation, new=revocation.grant_id not in known)


def apply_revocation(store: Store, data: bytes, root: bytes) -> RevocationVerdict:
    """Store a new revocation and purge every record whose chain it voids (row 15).

    The record is removed, not tombstoned: its authority was void, so an older still-valid
    version held elsewhere wins by LWW among the survivors.
    """
    verdict = judge_revocation(data, store.revoked_ids(), root)
    if not verdict.new or verdict.revocation is None:
        return verdict
    store.add_revocation(verdict.revocation)
    purged = tuple(sorted(store.keys_with_grant(verdict.revocation.grant_id)))
    for key in purged:
        store.delete(key)
    return RevocationVerdict(None, verdict.revocation, new=True, purged=purged)


class MemoryStore:
    """A dict-backed `Store` for tests, vectors and the simulation."""

    def __init__(
        self, records: Iterable[Record] = (), revocations: Iterable[Revocation] = ()
    ) -> None:
        self.records: dict[str, Record] = {r.key: r for r in records}
        self.revocations: dict[bytes, Revocation] = {r.grant_id: r for r in revocations}

    def get(self, key: str) -> Record | None:
        return self.records.get(key)

    def put(self, record: Record) -> None:
        self.records[record.key] = record

    def delete(self, key: str) -> None:
        self.records.pop(key, None)

    def get_by_entry_hash(self, entry_hash: bytes) -> Record | None:
        for record in self.records.values():
            if record.entry_hash == entry_hash:
                return record
        return None

    def sync_items(self) -> list[SyncItem]:
        return sorted(r.lww_key for r in self.records.values())

    def count(self) -> int:
        return len(self.records)

    def keys_with_grant(self, grant_id: bytes) -> list[str]:
        return [
            key
            for key, record in self.records.items()
            if any(grant_id_of(g) == grant_id for g in record.chain)
        ]

    def revoked_ids(self) -> frozenset[bytes]:
        return frozenset(self.revocations)

    def get_revocation(self, grant_id: bytes) -> Revocation | None:
        return self.revocations.get(grant_id)

    def add_revocation(self, revocation: Revocation) -> None:
        self.revocations[revocation.grant_id] = revocation

    def tree_hash(self) -> bytes:
        return tree_hash_of(self.records.values())

    def revset_hash(self) -> bytes:
        return revset_hash(self.revocations)
