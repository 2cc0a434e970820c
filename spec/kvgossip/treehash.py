"""Tree hash v2 and revocation-set hash (notes 3.1 Decision; table rows 20, 26; decision K1).

`tree_hash = SHA-256("kvg/tree/2" || le256(S) || be64(N))`, where `S` is the sum of the entry
hashes of every present record (tombstones included, purged keys not), each read as a
little-endian integer, modulo 2^256, and `N` is their number. A put or a purge changes the
hash in O(1): `S += new - old`. Key names still count: the entry hash covers the record body,
which holds the key, ts, tombstone flag, value hash and signer. `revset_hash = SHA-256(
"kvg/revset/1" || sorted(revoked grant ids))`.
"""

from __future__ import annotations

from collections.abc import Iterable

from . import crypto
from .encoding import REVSET_TAG, TREE_TAG
from .records import Record

SUM_MODULUS = 1 << 256


def entry_sum(entry_hashes: Iterable[bytes]) -> int:
    """`S`: the entry hashes as little-endian integers, summed modulo 2^256."""
    return sum(int.from_bytes(h, "little") for h in entry_hashes) % SUM_MODULUS


def tree_hash(total: int, count: int) -> bytes:
    """The tree hash of a store whose entry hashes sum to `total` over `count` records."""
    return crypto.sha256(TREE_TAG + total.to_bytes(32, "little") + count.to_bytes(8, "big"))


def tree_hash_of(records: Iterable[Record]) -> bytes:
    """The tree hash of stored records (the empty store: S = 0, N = 0)."""
    hashes = [r.entry_hash for r in records]
    return tree_hash(entry_sum(hashes), len(hashes))


def revset_hash(grant_ids: Iterable[bytes]) -> bytes:
    """The hash of a revocation set: its sorted grant ids after the tag."""
    return crypto.sha256(REVSET_TAG + b"".join(sorted(grant_ids)))
