"""The fixed cast of the vectors: a root, three entities, an attacker, and their grants."""

from __future__ import annotations

from swarmconf.spec.kvgossip.fixtures import ALICE, BOB, CAROL, MALLORY, ROOT
from swarmconf.spec.kvgossip.grants import Grant, issue_grant

T0 = 1_700_000_000_000
"""Grants are issued at T0 (ms); records are written after it."""
NOW = T0 + 3_600_000
"""The local clock of every store and session vector."""

# root -> alice: /a/** with sub-grants; alice -> bob: /a/b/**; alice -> carol /a/c (no sub-grant)
G_ALICE = issue_grant(ROOT.seed, ALICE.pk, "/a/**", subgrant=True, issued_at=T0)
G_BOB = issue_grant(ALICE.seed, BOB.pk, "/a/b/**", subgrant=True, issued_at=T0)
G_CAROL = issue_grant(ALICE.seed, CAROL.pk, "/a/c", subgrant=False, issued_at=T0)
# alice -> bob, wider than alice's own grant (escalation attempt)
G_BOB_WIDE = issue_grant(ALICE.seed, BOB.pk, "/**", subgrant=False, issued_at=T0 + 1)
# root -> carol without the sub-grant flag; carol -> bob under it
G_CAROL_LEAF = issue_grant(ROOT.seed, CAROL.pk, "/c/**", subgrant=False, issued_at=T0)
G_CAROL_TO_BOB = issue_grant(CAROL.seed, BOB.pk, "/c/b", subgrant=False, issued_at=T0)
# A grant with an expiry
G_TEMP = issue_grant(ROOT.seed, BOB.pk, "/t/**", subgrant=False, issued_at=T0, expires_at=T0 + 1000)


def root_grant(pattern: str, to: bytes, subgrant: bool = True, issued_at: int = T0) -> Grant:
    """A grant from the root."""
    return issue_grant(ROOT.seed, to, pattern, subgrant=subgrant, issued_at=issued_at)


__all__ = ["ALICE", "BOB", "CAROL", "MALLORY", "NOW", "ROOT", "T0"]
