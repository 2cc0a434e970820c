"""Records: the set-verification object (notes 1.2; table rows 4, 16, 19, 21).

A record body is `["kvg/record/1", key, ts, tombstone, value_hash, signer]`, signed by `signer`.
On the wire a record is `[body, signature, value, chain]`, where `chain` lists signed grants
(ordered root to signer when built here; verifiers accept any order). A tombstone is an explicit
flag: its value is empty and its value hash is 32 zero bytes. `entry_hash = SHA-256(body)`, and
last-writer-wins orders records by `(ts, entry_hash)`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from . import crypto
from .encoding import RECORD_TAG, decode_body, decode_tuple, encode
from .grants import Grant
from .keys import check_key
from .reasons import KvReason, require

MAX_VALUE_BYTES = 1 << 20
MAX_POOL_GRANTS = 256
MAX_RECORD_BYTES = 2 << 20
ZERO_HASH = bytes(crypto.HASH_SIZE)


@dataclass(frozen=True, slots=True)
class Record:
    """A signed write (or tombstone) of one key, with the grants that authorise it."""

    key: str
    ts: int
    tombstone: bool
    value_hash: bytes
    signer: bytes
    body: bytes
    signature: bytes
    value: bytes
    chain: tuple[bytes, ...]
    wire: bytes | None = field(default=None, repr=False, compare=False)
    """The wire bytes the record was decoded from (canonical, so `encode` gives them back)."""
    entry_hash: bytes = field(init=False, repr=False, compare=False)
    """SHA-256 of the signed body: key, ts, tombstone, value and signer, not the chain."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "entry_hash", crypto.sha256(self.body))

    @property
    def lww_key(self) -> tuple[int, bytes]:
        """The last-writer-wins order key `(ts, entry_hash)` (table row 21)."""
        return (self.ts, self.entry_hash)

    def encode(self) -> bytes:
        """The record's wire bytes `[body, signature, value, chain]`."""
        if self.wire is not None:
            return self.wire
        return encode([self.body, self.signature, self.value, list(self.chain)])

    def with_chain(self, chain: Sequence[Grant]) -> Record:
        """The same signed record carrying exactly `chain` (what a node stores, row 31)."""
        encoded = tuple(g.encode() for g in chain)
        if encoded == self.chain:
            return self
        return Record(
            self.key,
            self.ts,
            self.tombstone,
            self.value_hash,
            self.signer,
            self.body,
            self.signature,
            self.value,
            encoded,
        )


def record_body(key: str, ts: int, tombstone: bool, value_hash: bytes, signer: bytes) -> bytes:
    """The canonical body bytes of a record."""
    return encode([RECORD_TAG, key, ts, tombstone, value_hash, signer])


def record_signing_message(body: bytes) -> bytes:
    """What a signer signs: the whole canonical body (table row 4).

    Key, timestamp, tombstone flag, value hash and signer are all covered, so a relay can
    neither bump the timestamp nor relabel the key.
    """
    return body


def value_hash_of(value: bytes | None) -> bytes:
    """The value hash a body names: SHA-256 of the value, or 32 zero bytes for a tombstone."""
    return ZERO_HASH if value is None else crypto.sha256(value)


def make_record(
    seed: bytes, key: str, ts: int, value: bytes | None, chain: Sequence[Grant] = ()
) -> Record:
    """Sign a write of `value` (None: a tombstone) to `key` at `ts`, checked like a received one."""
    signer = crypto.public_key(seed)
    body = record_body(key, ts, value is None, value_hash_of(value), signer)
    signature = crypto.sign(seed, record_signing_message(body))
    wire = encode([body, signature, value or b"", [g.encode() for g in chain]])
    return decode_record(wire)


def decode_record(data: bytes) -> Record:
    """Decode and check a record on its own: everything except authorisation and time.

    Checks: canonical envelope and body, size caps, key grammar, the signer's signature over the
    body, and the value against the body's value hash and tombstone flag.
    """
    body, signature, value, chain = decode_tuple(
        data, (bytes, bytes, bytes, list), MAX_RECORD_BYTES
    )
    key, ts, tombstone, value_hash, signer = decode_body(
        body, RECORD_TAG, (str, int, bool, bytes, bytes), MAX_RECORD_BYTES
    )
    # Verify field sizes and caps
    require(len(value_hash) == crypto.HASH_SIZE, KvReason.BAD_SHAPE, "value hash size")
    require(len(signer) == crypto.PUBLIC_KEY_SIZE, KvReason.BAD_SHAPE, "signer size")
    require(len(signature) == crypto.SIGNATURE_SIZE, KvReason.BAD_SHAPE, "signature size")
    require(all(type(g) is bytes for g in chain), KvReason.BAD_SHAPE, "chain entry not bin")
    require(len(value) <= MAX_VALUE_BYTES, KvReason.VALUE_TOO_LARGE)
    require(len(chain) <= MAX_POOL_GRANTS, KvReason.POOL_TOO_LARGE)
    # Verify the key grammar
    check_key(key)
    # Verify the signer's signature over the body
    require(crypto.verify(signer, record_signing_message(body), signature), KvReason.BAD_SIGNATURE)
    # Verify the value against the tombstone flag and the value hash
    if tombstone:
        require(value == b"", KvReason.TOMBSTONE_WITH_VALUE)
        require(value_hash == ZERO_HASH, KvReason.TOMBSTONE_HASH_NOT_ZERO)
    else:
        require(crypto.sha256(value) == value_hash, KvReason.VALUE_HASH_MISMATCH)
    return Record(
        key, ts, tombstone, value_hash, signer, body, signature, value, tuple(chain), data
    )


def lww_greater(a: tuple[int, bytes], b: tuple[int, bytes]) -> bool:
    """True iff LWW key `a` beats `b`: `(ts, entry_hash)` compared lexicographically (row 21).

    Equal timestamps are decided by the entry hash, so no two nodes can each keep their own.
    """
    return a > b


def lww_wins(incoming: Record, local: Record | None) -> bool:
    """True iff `incoming` beats `local` under LWW by `(ts, entry_hash)` (table row 21)."""
    return local is None or lww_greater(incoming.lww_key, local.lww_key)
