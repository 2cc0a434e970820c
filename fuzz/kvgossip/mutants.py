"""The Go implementation's holes as deliberately broken variants of the spec (notes 3.4, 5).

Each mutant replaces one named spec function for the duration of `active(name)`; everything
that calls that function (records, chain search, store rules, sessions, simulation) then
behaves like the broken implementation. Tests show the vectors and the simulation catch each.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager, nullcontext

from swarmconf.spec.kvgossip import chain, crypto, records, treehash
from swarmconf.spec.kvgossip.encoding import RECORD_TAG, decode_body, encode
from swarmconf.spec.kvgossip.grants import Grant, grant_reason_for
from swarmconf.spec.kvgossip.keys import matches
from swarmconf.spec.kvgossip.reasons import KvReason

from ..swaps import Swaps, swapped


def _signing_message_without_ts(body: bytes) -> bytes:
    """Go: the signature never covers the timestamp, so a relay may change it."""
    key, _, tombstone, value_hash, signer = decode_body(
        body, RECORD_TAG, (str, int, bool, bytes, bytes), len(body)
    )
    return encode([RECORD_TAG, key, 0, tombstone, value_hash, signer])


def _goal_any(grant: Grant, key: str, signer: bytes) -> bool:
    """Go: any chain from the root ends the search; its last issuee need not be the signer."""
    return True


def _link_ignoring_pattern(
    grant: Grant, key: str, ts: int, root: bytes, revoked: chain.Revoked
) -> bool:
    """Go: intermediate grants are not checked against the key."""
    return grant_reason_for(grant, key, ts, root, revoked) in (
        None,
        KvReason.GRANT_PATTERN_MISMATCH,
    )


def _goal_with_pattern(grant: Grant, key: str, signer: bytes) -> bool:
    """Go: only the last grant's pattern has to match the key."""
    return grant.issuee == signer and matches(grant.pattern, key)


def _greater_by_ts_only(a: tuple[int, bytes], b: tuple[int, bytes]) -> bool:
    """Go: a strictly greater timestamp wins; on equal timestamps each side keeps its own."""
    return a[0] > b[0]


def _key_blind_tree_hash(stored: Iterable[records.Record]) -> bytes:
    """Go: the tree hash covers value hashes in key order, never the key names or times."""
    ordered = sorted(stored, key=lambda r: r.key.encode())
    return crypto.sha256(b"".join(b"" if r.tombstone else r.value_hash for r in ordered))


MUTANTS: dict[str, Swaps] = {
    "unsigned-timestamp": {(records, "record_signing_message"): _signing_message_without_ts},
    "unbound-chain": {(chain, "goal_ok"): _goal_any},
    "last-pattern-only": {
        (chain, "link_ok"): _link_ignoring_pattern,
        (chain, "goal_ok"): _goal_with_pattern,
    },
    "no-tie-break": {(records, "lww_greater"): _greater_by_ts_only},
    "key-blind-tree-hash": {(treehash, "tree_hash_of"): _key_blind_tree_hash},
}
"""Each mutant: the spec functions it replaces, by (module, name)."""


def active(name: str | None) -> AbstractContextManager[None]:
    """Run the block with mutant `name` in place (None: the spec itself); see `swaps`."""
    return nullcontext() if name is None else swapped(MUTANTS[name])
