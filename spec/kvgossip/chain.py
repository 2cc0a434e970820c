"""Chain authorisation (notes 2.2; table rows 5-10, 12, 31).

`find_chain` is the normative algorithm: the root signs with the empty chain; otherwise a
breadth-first search from the grants the root issued, over grants that each serve the key at
the record's timestamp (per-key intersection rule), along edges `g -> h` iff `g` allows
sub-grants and `h.issuer == g.issuee`, to a grant whose issuee is the signer. Acceptance never
depends on which chain; the one returned is the shortest, ties broken by the sequence of grant
ids, so builders and verifiers store the same chain. The search is O(V + E) and depth-bounded.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .grants import Grant, decode_grant, grant_reason_for
from .reasons import KvError, KvReason

MAX_CHAIN_LENGTH = 16

Revoked = frozenset[bytes] | set[bytes]


def decode_pool(pool: Iterable[bytes]) -> list[Grant]:
    """The well-formed signed grants of a pool, each once, in grant-id order (row 31).

    Malformed, badly signed and duplicate grants are ignored, never fatal.
    """
    grants: dict[bytes, Grant] = {}
    for data in pool:
        try:
            grant = decode_grant(data)
        except KvError:
            continue
        grants.setdefault(grant.id, grant)
    return [grants[gid] for gid in sorted(grants)]


def link_ok(grant: Grant, key: str, ts: int, root: bytes, revoked: Revoked) -> bool:
    """True iff the grant may stand anywhere on a chain for `key` at `ts` (valid_grant + match)."""
    return grant_reason_for(grant, key, ts, root, revoked) is None


def goal_ok(grant: Grant, key: str, signer: bytes) -> bool:
    """True iff a chain may end at `grant` for `signer`: the last issuee is the signer (row 5)."""
    return grant.issuee == signer


def find_chain(
    key: str, ts: int, signer: bytes, pool: Sequence[Grant], root: bytes, revoked: Revoked
) -> tuple[Grant, ...] | None:
    """The shortest chain authorising `signer` to write `key` at `ts`, or None (notes 2.2)."""
    # The root writes directly with the empty chain (row 10)
    if signer == root:
        return ()
    usable = sorted((g for g in pool if link_ok(g, key, ts, root, revoked)), key=lambda g: g.id)
    by_issuer: dict[bytes, list[Grant]] = {}
    for grant in usable:
        by_issuer.setdefault(grant.issuer, []).append(grant)
    # Breadth-first from the root's grants; each level is in path order, so the first goal
    # found is the shortest chain with the smallest id sequence
    frontier: list[tuple[Grant, ...]] = [(g,) for g in by_issuer.get(root, [])]
    seen = {path[0].id for path in frontier}
    for _ in range(MAX_CHAIN_LENGTH):
        for path in frontier:
            if goal_ok(path[-1], key, signer):
                return path
        next_frontier: list[tuple[Grant, ...]] = []
        for path in frontier:
            tail = path[-1]
            if not tail.subgrant:
                continue
            for child in by_issuer.get(tail.issuee, []):
                if child.id not in seen:
                    seen.add(child.id)
                    next_frontier.append((*path, child))
        frontier = next_frontier
    return None


@dataclass(frozen=True, slots=True)
class Authorization:
    """The outcome of authorising a record: its chain, or why not and which grants were revoked."""

    chain: tuple[Grant, ...] | None
    reason: KvReason | None
    revoked_ids: tuple[bytes, ...]


def authorize(
    key: str, ts: int, signer: bytes, pool: Iterable[bytes], root: bytes, revoked: Revoked
) -> Authorization:
    """Authorise a write; refuse with REVOKED when only revoked grants would have authorised it.

    Acceptance depends only on the record, its pool and the revocation set: a node never looks
    for alternative chains in its own grant store (notes section 4, open points).
    """
    grants = decode_pool(pool)
    chain = find_chain(key, ts, signer, grants, root, revoked)
    if chain is not None:
        return Authorization(chain, None, ())
    in_pool = tuple(g.id for g in grants if g.id in revoked)
    if in_pool and find_chain(key, ts, signer, grants, root, frozenset()) is not None:
        return Authorization(None, KvReason.REVOKED, in_pool)
    return Authorization(None, KvReason.UNAUTHORIZED, ())
