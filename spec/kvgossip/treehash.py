"""Tree hash and revocation-set hash (notes 3.1 Decision; table rows 20, 26).

`tree_hash = SHA-256("kvg/tree/1" || for key in sorted(keys): u16be(len(key)) || key ||
entry_hash)` over every present record, tombstones included. Key names are hashed, so two
stores holding the same values under different keys differ. `revset_hash = SHA-256(
"kvg/revset/1" || sorted(revoked grant ids))`.
"""

from __future__ import annotations

from collections.abc import Iterable

from . import crypto
from .encoding import REVSET_TAG, TREE_TAG
from .records import Record


def tree_hash(entries: Iterable[tuple[str, bytes]]) -> bytes:
    """The tree hash of `(key, entry_hash)` pairs; the empty store hashes the tag alone."""
    parts = [TREE_TAG]
    for key, entry_hash in sorted(entries, key=lambda item: item[0].encode()):
        name = key.encode()
        parts += [len(name).to_bytes(2, "big"), name, entry_hash]
    return crypto.sha256(b"".join(parts))


def tree_hash_of(records: Iterable[Record]) -> bytes:
    """The tree hash of stored records: each one's key and entry hash."""
    return tree_hash((r.key, r.entry_hash) for r in records)


def revset_hash(grant_ids: Iterable[bytes]) -> bytes:
    """The hash of a revocation set: its sorted grant ids after the tag."""
    return crypto.sha256(REVSET_TAG + b"".join(sorted(grant_ids)))
