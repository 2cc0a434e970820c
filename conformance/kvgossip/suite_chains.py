"""Chain authorisation vectors: every attack of notes section 5 (cases 9-16) and the normative
search of notes 2.2 (table rows 5-10, 12, 31)."""

from __future__ import annotations

from collections.abc import Sequence

from swarmconf.conformance.catalogue import Catalogue
from swarmconf.spec.kvgossip.encoding import encode
from swarmconf.spec.kvgossip.fixtures import entity
from swarmconf.spec.kvgossip.grants import Grant, issue_grant
from swarmconf.spec.kvgossip.records import make_record

from .base import Flag, Suite, add
from .world import (
    ALICE,
    BOB,
    CAROL,
    G_ALICE,
    G_BOB,
    G_BOB_WIDE,
    G_CAROL_LEAF,
    G_CAROL_TO_BOB,
    G_TEMP,
    MALLORY,
    ROOT,
    T0,
    root_grant,
)

FLAGS = {
    "Valid": Flag("BASIC", "A record a chain authorises.", "Accepted with the shortest chain."),
    "RootDirect": Flag(
        "FUNCTIONALITY", "The root signs with the empty chain.", "Accepted (Go cannot do this)."
    ),
    "UnboundChain": Flag(
        "AUTH_BYPASS",
        "A valid chain whose last issuee is not the signer (Go's critical hole).",
        "Rejected.",
    ),
    "Escalation": Flag(
        "AUTH_BYPASS",
        "A sub-grant wider than its parent, used outside the parent's pattern (Go checks only "
        "the last grant's pattern).",
        "Rejected: every grant on the chain must match the key.",
    ),
    "NoSubgrantFlag": Flag(
        "AUTH_BYPASS", "A chain through a grant without the sub-grant flag.", "Rejected."
    ),
    "Cycle": Flag("EDGE_CASE", "Grants forming a cycle.", "The search terminates."),
    "DensePool": Flag(
        "EDGE_CASE",
        "Hundreds of mutually sub-granting grants (Go's all-paths search is exponential).",
        "Decided in O(V + E).",
    ),
    "TimeWindow": Flag(
        "EDGE_CASE", "A chain grant not valid at the record's timestamp.", "Rejected."
    ),
    "ExtraGrants": Flag(
        "FUNCTIONALITY",
        "Duplicate, malformed, unrelated and revoked grants beside a valid chain (Go fails the "
        "apply on a revoked extra).",
        "Ignored: accepted, and only the chain is kept.",
    ),
    "Revoked": Flag(
        "FUNCTIONALITY",
        "The only chain uses a revoked grant.",
        "Rejected with REVOKED; the revoked ids go back with the result.",
    ),
    "ShortestChain": Flag(
        "ORDERING",
        "Several chains authorise the record.",
        "The shortest is kept, ties broken by the sequence of grant ids.",
    ),
    "Limits": Flag("EDGE_CASE", "Chain length and pool size caps.", "As stated."),
    "GoHole": Flag("DEPLOYED_QUIRK", "The Go implementation accepts this.", "Must be rejected."),
    "DesignExample": Flag("DESIGN_TEXT_EXAMPLE", "The grant example of kv-gossip.md.", "Accepted."),
}


HEADER = [
    "Decode the record, then authorise it under the root and the revoked ids: the root",
    "signs with the empty chain; otherwise a chain from the root to the signer where every",
    "grant is valid at the record's ts and matches the key, and every grant but the last",
    "allows sub-grants. Valid gives the shortest chain (grant ids, root first); REVOKED",
    "gives the revoked ids found in the pool.",
]
TS = T0 + 10
"""The records' timestamp unless a case says otherwise."""
Pool = Sequence[Grant | bytes]


class Authorizing:
    """The suite and its one group: authorise a record under the root key."""

    def __init__(self, strict: bool) -> None:
        self.suite = Suite("chains", HEADER, FLAGS)
        self.group = self.suite.group("authorize", rootKey=ROOT.pk.hex())
        self.strict = strict

    def case(
        self,
        name: str,
        comment: str,
        flags: list[str],
        seed: bytes,
        key: str,
        pool: Pool,
        want: str,
        reason: str | None = None,
        *,
        ts: int = TS,
        revoked: tuple[bytes, ...] = (),
        rules: tuple[str, ...] = ("notes:2.2",),
    ) -> None:
        """The record `seed` signs for `key` at `ts`, shipped with the grants of `pool`."""
        wire = [g.encode() if isinstance(g, Grant) else g for g in pool]
        record = make_record(seed, key, ts, b"v")
        data = encode([record.body, record.signature, record.value, wire])
        add(
            self.suite,
            self.group,
            name,
            comment,
            flags=flags,
            rules=list(rules),
            input={"record": data.hex(), "revokedIds": [x.hex() for x in revoked]},
            want=want,
            reason=reason,
            strict=self.strict,
        )


case = Catalogue[Authorizing]()


@case
def root_writes_directly(a: Authorizing) -> None:
    rules = ("notes:2.2", "row:10", "attack:10")
    a.case(
        "root-writes-directly",
        "The root signs /z with no grants.",
        ["RootDirect"],
        ROOT.seed,
        "/z",
        [],
        "valid",
        rules=rules,
    )
    a.case(
        "non-root-empty-chain",
        "alice signs /a/x with no grants.",
        ["Valid"],
        ALICE.seed,
        "/a/x",
        [],
        "invalid",
        "UNAUTHORIZED",
        rules=rules,
    )


@case
def valid_chains(a: Authorizing) -> None:
    a.case(
        "one-link",
        "root -> alice /a/**; alice writes /a/x.",
        ["Valid"],
        ALICE.seed,
        "/a/x",
        [G_ALICE],
        "valid",
    )
    a.case(
        "two-links",
        "root -> alice -> bob /a/b/**; bob writes /a/b/x.",
        ["Valid"],
        BOB.seed,
        "/a/b/x",
        [G_ALICE, G_BOB],
        "valid",
    )
    a.case(
        "two-links-pool-reversed",
        "The same pool in reverse order.",
        ["Valid"],
        BOB.seed,
        "/a/b/x",
        [G_BOB, G_ALICE],
        "valid",
    )


@case
def signer_bound_to_chain(a: Authorizing) -> None:
    rules = ("notes:2.2", "row:5", "attack:9")
    a.case(
        "signer-not-last-issuee",
        "mallory ships root -> alice /a/** and signs /a/k.",
        ["UnboundChain", "GoHole"],
        MALLORY.seed,
        "/a/k",
        [G_ALICE],
        "invalid",
        "UNAUTHORIZED",
        rules=rules,
    )
    a.case(
        "signer-is-intermediate-issuee",
        "alice signs /a/b/x shipping root -> alice -> bob.",
        ["Valid"],
        ALICE.seed,
        "/a/b/x",
        [G_ALICE, G_BOB],
        "valid",
        rules=rules,
    )


@case
def escalation(a: Authorizing) -> None:
    rules = ("notes:2.2", "row:6", "attack:11")
    a.case(
        "escalation-outside-parent",
        "root -> alice /a/**, alice -> bob /**; bob writes /z.",
        ["Escalation", "GoHole"],
        BOB.seed,
        "/z",
        [G_ALICE, G_BOB_WIDE],
        "invalid",
        "UNAUTHORIZED",
        rules=rules,
    )
    a.case(
        "escalation-inside-parent",
        "The same chain; bob writes /a/q.",
        ["Escalation"],
        BOB.seed,
        "/a/q",
        [G_ALICE, G_BOB_WIDE],
        "valid",
        rules=rules,
    )


@case
def subgrant_flag(a: Authorizing) -> None:
    rules = ("notes:2.2", "row:7", "attack:12")
    a.case(
        "subgrant-without-flag",
        "root -> carol /c/** (no sub-grant), carol -> bob /c/b.",
        ["NoSubgrantFlag"],
        BOB.seed,
        "/c/b",
        [G_CAROL_LEAF, G_CAROL_TO_BOB],
        "invalid",
        "UNAUTHORIZED",
        rules=rules,
    )
    a.case(
        "leaf-grant-holder-writes",
        "carol herself writes /c/b.",
        ["NoSubgrantFlag"],
        CAROL.seed,
        "/c/b",
        [G_CAROL_LEAF, G_CAROL_TO_BOB],
        "valid",
        rules=rules,
    )


@case
def grant_to_root_no_help(a: Authorizing) -> None:
    to_root = issue_grant(ALICE.seed, ROOT.pk, "/a/**", subgrant=True, issued_at=T0)
    a.case(
        "grant-to-root-no-help",
        "alice -> root ships beside nothing else; alice writes.",
        ["UnboundChain"],
        ALICE.seed,
        "/a/x",
        [to_root],
        "invalid",
        "UNAUTHORIZED",
        rules=("notes:2.2", "row:8", "attack:13"),
    )


@case
def cycles(a: Authorizing) -> None:
    ab = issue_grant(ALICE.seed, BOB.pk, "/a/**", subgrant=True, issued_at=T0)
    ba = issue_grant(BOB.seed, ALICE.pk, "/a/**", subgrant=True, issued_at=T0)
    a.case(
        "cycle-without-root",
        "alice -> bob and bob -> alice, no root grant.",
        ["Cycle"],
        BOB.seed,
        "/a/x",
        [ab, ba],
        "invalid",
        "UNAUTHORIZED",
        rules=(
            "notes:2.2",
            "attack:14",
        ),
    )
    a.case(
        "cycle-with-root",
        "root -> alice plus the cycle: root -> alice -> bob.",
        ["Cycle"],
        BOB.seed,
        "/a/x",
        [ba, ab, G_ALICE],
        "valid",
        rules=(
            "notes:2.2",
            "attack:14",
        ),
    )


@case
def dense_pool(a: Authorizing) -> None:
    people = [entity(f"dense{i}") for i in range(15)]
    dense = [
        issue_grant(x.seed, y.pk, "/d/**", subgrant=True, issued_at=T0)
        for x in people
        for y in people
        if x != y
    ]
    a.case(
        "dense-pool-unreachable-signer",
        "210 mutually sub-granting grants and root -> dense0; mallory signs.",
        ["DensePool"],
        MALLORY.seed,
        "/d/x",
        [root_grant("/d/**", people[0].pk), *dense],
        "invalid",
        "UNAUTHORIZED",
        rules=(
            "notes:2.2",
            "attack:14",
        ),
    )
    a.case(
        "dense-pool-reachable",
        "The same pool; dense14 signs: two links.",
        ["DensePool"],
        people[14].seed,
        "/d/x",
        [*dense, root_grant("/d/**", people[0].pk)],
        "valid",
        rules=(
            "notes:2.2",
            "attack:14",
        ),
    )


@case
def grant_expiry(a: Authorizing) -> None:
    rules = ("notes:2.2", "row:11", "attack:15")
    a.case(
        "expired-grant",
        "root -> bob /t/** expires at T0+1000; record at T0+1000.",
        ["TimeWindow"],
        BOB.seed,
        "/t/x",
        [G_TEMP],
        "invalid",
        "UNAUTHORIZED",
        ts=T0 + 1000,
        rules=rules,
    )
    a.case(
        "before-expiry",
        "The same grant; record at T0+999.",
        ["TimeWindow"],
        BOB.seed,
        "/t/x",
        [G_TEMP],
        "valid",
        ts=T0 + 999,
        rules=rules,
    )


@case
def records_older_than_their_grants(a: Authorizing) -> None:
    rules = ("notes:2.2", "row:12", "attack:15")
    a.case(
        "record-before-grant",
        "alice's record stamped before her grant.",
        ["TimeWindow"],
        ALICE.seed,
        "/a/x",
        [G_ALICE],
        "invalid",
        "UNAUTHORIZED",
        ts=T0 - 1,
        rules=rules,
    )
    late = issue_grant(ALICE.seed, BOB.pk, "/a/b/**", subgrant=False, issued_at=T0 + 100)
    a.case(
        "record-before-intermediate-grant",
        "bob's record predates alice -> bob.",
        ["TimeWindow"],
        BOB.seed,
        "/a/b/x",
        [G_ALICE, late],
        "invalid",
        "UNAUTHORIZED",
        ts=T0 + 50,
        rules=rules,
    )


@case
def extras_ignored(a: Authorizing) -> None:
    unrelated = root_grant("/u/**", CAROL.pk)
    a.case(
        "extras-ignored",
        "Garbage, a duplicate, an unrelated and a revoked grant beside root -> alice.",
        ["ExtraGrants"],
        ALICE.seed,
        "/a/x",
        [b"\x00garbage", G_ALICE, unrelated, G_ALICE, b""],
        "valid",
        revoked=(unrelated.id,),
        rules=("notes:2.2", "row:31", "attack:16"),
    )


@case
def revoked_grants(a: Authorizing) -> None:
    a.case(
        "only-chain-revoked",
        "root -> alice is revoked.",
        ["Revoked"],
        ALICE.seed,
        "/a/x",
        [G_ALICE],
        "invalid",
        "REVOKED",
        revoked=(G_ALICE.id,),
        rules=("notes:2.2", "row:15", "attack:20"),
    )
    alt = root_grant("/a/x", ALICE.pk, subgrant=False)
    a.case(
        "revoked-with-alternative",
        "root -> alice /a/** revoked, root -> alice /a/x not.",
        ["Revoked"],
        ALICE.seed,
        "/a/x",
        [G_ALICE, alt],
        "valid",
        revoked=(G_ALICE.id,),
        rules=(
            "notes:2.2",
            "row:15",
        ),
    )


@case
def shortest_chain(a: Authorizing) -> None:
    direct_bob = root_grant("/a/b/**", BOB.pk, subgrant=False)
    a.case(
        "shortest-chain-wins",
        "root -> alice -> bob and root -> bob: one link kept.",
        ["ShortestChain"],
        BOB.seed,
        "/a/b/x",
        [G_ALICE, G_BOB, direct_bob],
        "valid",
        rules=(
            "notes:2.2",
            "row:9",
        ),
    )
    twin = root_grant("/a/b/*", BOB.pk, subgrant=False)
    a.case(
        "equal-length-tie-by-id",
        "Two one-link chains: the smaller grant id is kept.",
        ["ShortestChain"],
        BOB.seed,
        "/a/b/x",
        [direct_bob, twin],
        "valid",
        rules=(
            "notes:2.2",
            "row:9",
        ),
    )


@case
def limits(a: Authorizing) -> None:
    line = [entity(f"line{i}") for i in range(17)]
    chain16 = [root_grant("/l/**", line[0].pk)] + [
        issue_grant(line[i].seed, line[i + 1].pk, "/l/**", subgrant=True, issued_at=T0)
        for i in range(15)
    ]
    a.case(
        "chain-of-16",
        "A 16-grant chain.",
        ["Limits"],
        line[15].seed,
        "/l/x",
        chain16,
        "valid",
        rules=(
            "notes:2.2",
            "row:33",
        ),
    )
    chain17 = [
        *chain16,
        issue_grant(line[15].seed, line[16].pk, "/l/**", subgrant=True, issued_at=T0),
    ]
    a.case(
        "chain-of-17",
        "A 17-grant chain is beyond the cap.",
        ["Limits"],
        line[16].seed,
        "/l/x",
        chain17,
        "invalid",
        "UNAUTHORIZED",
        rules=(
            "notes:2.2",
            "row:33",
        ),
    )
    a.case(
        "pool-of-257",
        "257 pool entries (empty ones: the count alone is refused).",
        ["Limits"],
        ALICE.seed,
        "/a/x",
        [b""] * 257,
        "invalid",
        "POOL_TOO_LARGE",
        rules=(
            "notes:2.2",
            "row:33",
        ),
    )


@case
def design_np1_grant(a: Authorizing) -> None:
    operator = entity("np1-operator")
    np1 = root_grant("/fusebot.io/r/np1/*", operator.pk, subgrant=False)
    a.case(
        "design-np1-grant",
        "A root grant /fusebot.io/r/np1/*; its holder writes a key.",
        ["DesignExample"],
        operator.seed,
        "/fusebot.io/r/np1/settings",
        [np1],
        "valid",
        rules=("design:authorization", "notes:2.2"),
    )


def build(strict: bool = True) -> Suite:
    return case.fill(Authorizing(strict)).suite
