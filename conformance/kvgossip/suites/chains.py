"""Chain authorisation vectors: every attack of notes section 5 (cases 9-16) and the normative
search of notes 2.2 (table rows 5-10, 12, 31)."""

from __future__ import annotations

from collections.abc import Sequence

from swarmconf.conformance.builder import BoundGroup, SuiteBuilder
from swarmconf.conformance.catalogue import Catalogue
from swarmconf.conformance.vectors import Flag, Json
from swarmconf.spec.kvgossip.encoding import encode
from swarmconf.spec.kvgossip.fixtures import entity
from swarmconf.spec.kvgossip.grants import Grant, issue_grant
from swarmconf.spec.kvgossip.records import make_record

from ..vocabulary import new_suite
from ..world import (
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


def authorize(
    seed: bytes, key: str, pool: Pool, *, ts: int = TS, revoked: tuple[bytes, ...] = ()
) -> Json:
    """The input: the record `seed` signs for `key` at `ts`, shipped with the grants of `pool`,
    under these revoked grant ids (signed when called: under a mutant, if one is active)."""
    record = make_record(seed, key, ts, b"v")
    wire = [g.encode() if isinstance(g, Grant) else g for g in pool]
    data = encode([record.body, record.signature, record.value, wire])
    return {"record": data.hex(), "revokedIds": [x.hex() for x in revoked]}


case = Catalogue[BoundGroup]()


@case
def root_writes_directly(g: BoundGroup) -> None:
    rules = ["notes:2.2", "row:10", "attack:10"]
    g.case(
        "root-writes-directly",
        "The root signs /z with no grants.",
        flags=["RootDirect"],
        input=authorize(ROOT.seed, "/z", []),
        expect="valid",
        rules=rules,
    )
    g.case(
        "non-root-empty-chain",
        "alice signs /a/x with no grants.",
        flags=["Valid"],
        input=authorize(ALICE.seed, "/a/x", []),
        expect="UNAUTHORIZED",
        rules=rules,
    )


@case
def valid_chains(g: BoundGroup) -> None:
    for name, comment, seed, key, pool in [
        ("one-link", "root -> alice /a/**; alice writes /a/x.", ALICE.seed, "/a/x", [G_ALICE]),
        (
            "two-links",
            "root -> alice -> bob /a/b/**; bob writes /a/b/x.",
            BOB.seed,
            "/a/b/x",
            [G_ALICE, G_BOB],
        ),
        (
            "two-links-pool-reversed",
            "The same pool in reverse order.",
            BOB.seed,
            "/a/b/x",
            [G_BOB, G_ALICE],
        ),
    ]:
        g.case(
            name,
            comment,
            flags=["Valid"],
            input=authorize(seed, key, pool),
            expect="valid",
            rules=["notes:2.2"],
        )


@case
def signer_bound_to_chain(g: BoundGroup) -> None:
    rules = ["notes:2.2", "row:5", "attack:9"]
    g.case(
        "signer-not-last-issuee",
        "mallory ships root -> alice /a/** and signs /a/k.",
        flags=["UnboundChain", "GoHole"],
        input=authorize(MALLORY.seed, "/a/k", [G_ALICE]),
        expect="UNAUTHORIZED",
        rules=rules,
    )
    g.case(
        "signer-is-intermediate-issuee",
        "alice signs /a/b/x shipping root -> alice -> bob.",
        flags=["Valid"],
        input=authorize(ALICE.seed, "/a/b/x", [G_ALICE, G_BOB]),
        expect="valid",
        rules=rules,
    )


@case
def escalation(g: BoundGroup) -> None:
    rules = ["notes:2.2", "row:6", "attack:11"]
    g.case(
        "escalation-outside-parent",
        "root -> alice /a/**, alice -> bob /**; bob writes /z.",
        flags=["Escalation", "GoHole"],
        input=authorize(BOB.seed, "/z", [G_ALICE, G_BOB_WIDE]),
        expect="UNAUTHORIZED",
        rules=rules,
    )
    g.case(
        "escalation-inside-parent",
        "The same chain; bob writes /a/q.",
        flags=["Escalation"],
        input=authorize(BOB.seed, "/a/q", [G_ALICE, G_BOB_WIDE]),
        expect="valid",
        rules=rules,
    )


@case
def subgrant_flag(g: BoundGroup) -> None:
    pool = [G_CAROL_LEAF, G_CAROL_TO_BOB]
    for name, comment, seed, expect in [
        (
            "subgrant-without-flag",
            "root -> carol /c/** (no sub-grant), carol -> bob /c/b.",
            BOB.seed,
            "UNAUTHORIZED",
        ),
        ("leaf-grant-holder-writes", "carol herself writes /c/b.", CAROL.seed, "valid"),
    ]:
        g.case(
            name,
            comment,
            flags=["NoSubgrantFlag"],
            input=authorize(seed, "/c/b", pool),
            expect=expect,
            rules=["notes:2.2", "row:7", "attack:12"],
        )


@case
def grant_to_root_no_help(g: BoundGroup) -> None:
    to_root = issue_grant(ALICE.seed, ROOT.pk, "/a/**", subgrant=True, issued_at=T0)
    g.case(
        "grant-to-root-no-help",
        "alice -> root ships beside nothing else; alice writes.",
        flags=["UnboundChain"],
        input=authorize(ALICE.seed, "/a/x", [to_root]),
        expect="UNAUTHORIZED",
        rules=["notes:2.2", "row:8", "attack:13"],
    )


@case
def cycles_and_dense_pools(g: BoundGroup) -> None:
    """The search terminates on a cycle, and stays linear on a pool where Go's explodes."""
    ab = issue_grant(ALICE.seed, BOB.pk, "/a/**", subgrant=True, issued_at=T0)
    ba = issue_grant(BOB.seed, ALICE.pk, "/a/**", subgrant=True, issued_at=T0)
    people = [entity(f"dense{i}") for i in range(15)]
    dense = [
        issue_grant(x.seed, y.pk, "/d/**", subgrant=True, issued_at=T0)
        for x in people
        for y in people
        if x != y
    ]
    to_dense0 = root_grant("/d/**", people[0].pk)
    for name, comment, flag, request, expect in [
        (
            "cycle-without-root",
            "alice -> bob and bob -> alice, no root grant.",
            "Cycle",
            authorize(BOB.seed, "/a/x", [ab, ba]),
            "UNAUTHORIZED",
        ),
        (
            "cycle-with-root",
            "root -> alice plus the cycle: root -> alice -> bob.",
            "Cycle",
            authorize(BOB.seed, "/a/x", [ba, ab, G_ALICE]),
            "valid",
        ),
        (
            "dense-pool-unreachable-signer",
            "210 mutually sub-granting grants and root -> dense0; mallory signs.",
            "DensePool",
            authorize(MALLORY.seed, "/d/x", [to_dense0, *dense]),
            "UNAUTHORIZED",
        ),
        (
            "dense-pool-reachable",
            "The same pool; dense14 signs: two links.",
            "DensePool",
            authorize(people[14].seed, "/d/x", [*dense, to_dense0]),
            "valid",
        ),
    ]:
        g.case(
            name,
            comment,
            flags=[flag],
            input=request,
            expect=expect,
            rules=["notes:2.2", "attack:14"],
        )


@case
def time_windows(g: BoundGroup) -> None:
    """Every grant of the chain must be valid at the record's ts, not at the local clock."""
    late = issue_grant(ALICE.seed, BOB.pk, "/a/b/**", subgrant=False, issued_at=T0 + 100)
    for name, comment, request, expect, row in [
        (
            "expired-grant",
            "root -> bob /t/** expires at T0+1000; record at T0+1000.",
            authorize(BOB.seed, "/t/x", [G_TEMP], ts=T0 + 1000),
            "UNAUTHORIZED",
            "row:11",
        ),
        (
            "before-expiry",
            "The same grant; record at T0+999.",
            authorize(BOB.seed, "/t/x", [G_TEMP], ts=T0 + 999),
            "valid",
            "row:11",
        ),
        (
            "record-before-grant",
            "alice's record stamped before her grant.",
            authorize(ALICE.seed, "/a/x", [G_ALICE], ts=T0 - 1),
            "UNAUTHORIZED",
            "row:12",
        ),
        (
            "record-before-intermediate-grant",
            "bob's record predates alice -> bob.",
            authorize(BOB.seed, "/a/b/x", [G_ALICE, late], ts=T0 + 50),
            "UNAUTHORIZED",
            "row:12",
        ),
    ]:
        g.case(
            name,
            comment,
            flags=["TimeWindow"],
            input=request,
            expect=expect,
            rules=["notes:2.2", row, "attack:15"],
        )


@case
def extras_ignored(g: BoundGroup) -> None:
    unrelated = root_grant("/u/**", CAROL.pk)
    pool: Pool = [b"\x00garbage", G_ALICE, unrelated, G_ALICE, b""]
    g.case(
        "extras-ignored",
        "Garbage, a duplicate, an unrelated and a revoked grant beside root -> alice.",
        flags=["ExtraGrants"],
        input=authorize(ALICE.seed, "/a/x", pool, revoked=(unrelated.id,)),
        expect="valid",
        rules=["notes:2.2", "row:31", "attack:16"],
    )


@case
def revoked_grants(g: BoundGroup) -> None:
    g.case(
        "only-chain-revoked",
        "root -> alice is revoked.",
        flags=["Revoked"],
        input=authorize(ALICE.seed, "/a/x", [G_ALICE], revoked=(G_ALICE.id,)),
        expect="REVOKED",
        rules=["notes:2.2", "row:15", "attack:20"],
    )
    alt = root_grant("/a/x", ALICE.pk, subgrant=False)
    g.case(
        "revoked-with-alternative",
        "root -> alice /a/** revoked, root -> alice /a/x not.",
        flags=["Revoked"],
        input=authorize(ALICE.seed, "/a/x", [G_ALICE, alt], revoked=(G_ALICE.id,)),
        expect="valid",
        rules=["notes:2.2", "row:15"],
    )


@case
def shortest_chain(g: BoundGroup) -> None:
    direct_bob = root_grant("/a/b/**", BOB.pk, subgrant=False)
    twin = root_grant("/a/b/*", BOB.pk, subgrant=False)
    for name, comment, pool in [
        (
            "shortest-chain-wins",
            "root -> alice -> bob and root -> bob: one link kept.",
            [G_ALICE, G_BOB, direct_bob],
        ),
        (
            "equal-length-tie-by-id",
            "Two one-link chains: the smaller grant id is kept.",
            [direct_bob, twin],
        ),
    ]:
        g.case(
            name,
            comment,
            flags=["ShortestChain"],
            input=authorize(BOB.seed, "/a/b/x", pool),
            expect="valid",
            rules=["notes:2.2", "row:9"],
        )


@case
def limits(g: BoundGroup) -> None:
    line = [entity(f"line{i}") for i in range(17)]
    chain = [root_grant("/l/**", line[0].pk)] + [
        issue_grant(line[i].seed, line[i + 1].pk, "/l/**", subgrant=True, issued_at=T0)
        for i in range(16)
    ]
    for name, comment, request, expect in [
        ("chain-of-16", "A 16-grant chain.", authorize(line[15].seed, "/l/x", chain[:16]), "valid"),
        (
            "chain-of-17",
            "A 17-grant chain is beyond the cap.",
            authorize(line[16].seed, "/l/x", chain),
            "UNAUTHORIZED",
        ),
        (
            "pool-of-257",
            "257 pool entries (empty ones: the count alone is refused).",
            authorize(ALICE.seed, "/a/x", [b""] * 257),
            "POOL_TOO_LARGE",
        ),
    ]:
        g.case(
            name,
            comment,
            flags=["Limits"],
            input=request,
            expect=expect,
            rules=["notes:2.2", "row:33"],
        )


@case
def design_np1_grant(g: BoundGroup) -> None:
    operator = entity("np1-operator")
    np1 = root_grant("/fusebot.io/r/np1/*", operator.pk, subgrant=False)
    g.case(
        "design-np1-grant",
        "A root grant /fusebot.io/r/np1/*; its holder writes a key.",
        flags=["DesignExample"],
        input=authorize(operator.seed, "/fusebot.io/r/np1/settings", [np1]),
        expect="valid",
        rules=["design:authorization", "notes:2.2"],
    )


def build(strict: bool = True) -> SuiteBuilder:
    suite = new_suite("chains", " ".join(HEADER), FLAGS, strict=strict)
    case.fill(suite.group("kv_authorize", rootKey=ROOT.pk.hex()))
    return suite
