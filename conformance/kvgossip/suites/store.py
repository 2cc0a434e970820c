"""Store vectors: LWW, tombstones, revocation effects and clock-skew deferral, as sequences of
records and revocations applied to an empty store (notes 1.2, 2.2, 3.5; table rows 15, 16, 21,
22, 32; section 5 cases 19-29)."""

from __future__ import annotations

from swarmconf.conformance.builder import BoundGroup, SuiteBuilder
from swarmconf.conformance.catalogue import Catalogue
from swarmconf.conformance.vectors import Flag, Json
from swarmconf.spec.kvgossip.grants import (
    Grant,
    Revocation,
    issue_grant,
    revocation_body,
    revoke_grant,
)
from swarmconf.spec.kvgossip.records import Record, make_record
from swarmconf.spec.kvgossip.state import DEFAULT_SKEW_MS

from ..craft import signed
from ..vocabulary import new_suite
from ..world import ALICE, BOB, G_ALICE, MALLORY, NOW, ROOT, T0, root_grant

FLAGS = {
    "Lww": Flag("BASIC", "Last-writer-wins by (ts, entry_hash).", "The larger wins."),
    "TieBreak": Flag(
        "CONFLICT",
        "Equal timestamps, different records (Go keeps each side's own: permanent divergence).",
        "The larger entry_hash wins in every order.",
    ),
    "Stale": Flag("STALE", "An older record after a newer one.", "Refused: STALE."),
    "Tombstone": Flag("FUNCTIONALITY", "Tombstones take part in LWW.", "As any record."),
    "RevocationEffect": Flag(
        "FUNCTIONALITY",
        "A revocation voids stored and future records authorised through the grant.",
        "Purged (absent, not tombstoned); older valid versions may win again.",
    ),
    "Idempotent": Flag("BASIC", "The same input twice.", "The second changes nothing."),
    "ClockSkew": Flag(
        "EDGE_CASE",
        "Record timestamps against the local clock plus the skew (30 s).",
        "Beyond: deferred, not stored, not fatal; at or within: accepted.",
    ),
    "GoHole": Flag(
        "DEPLOYED_QUIRK", "The Go implementation behaves otherwise here.", "Follow the vector."
    ),
}

Op = Record | Revocation | tuple[Record, int] | bytes
"""A record (applied at NOW or at the given time), a revocation, or raw revocation bytes."""


HEADER = [
    "Apply each op in order to an empty store (records with their `now`, revocations),",
    "then report every op's outcome (records: accepted, agree, stale, rejected, deferred;",
    "revocations: new, known, rejected, with the keys purged) and the final state.",
]
SKEW = DEFAULT_SKEW_MS


def rec(
    key: str,
    ts: int,
    value: bytes | None,
    seed: bytes = ALICE.seed,
    chain: list[Grant] | None = None,
) -> Record:
    """A record signed by `seed` (alice, through root -> alice, unless told otherwise); signed
    when called, so under a mutant if one is active."""
    return make_record(seed, key, ts, value, [G_ALICE] if chain is None else chain)


def applying(ops: list[Op]) -> Json:
    """The input: these ops applied in order to an empty store."""
    encoded: list[Json] = []
    for op in ops:
        if isinstance(op, Revocation | bytes):
            raw = op if isinstance(op, bytes) else op.encode()
            encoded.append({"op": "revocation", "bytes": raw.hex(), "now": NOW})
        else:
            record, now = op if isinstance(op, tuple) else (op, NOW)
            encoded.append({"op": "record", "bytes": record.encode().hex(), "now": now})
    return {"ops": encoded}


case = Catalogue[BoundGroup]()


@case
def record_order(g: BoundGroup) -> None:
    """alice's /a/k in versions v1 to v4 (t3 a tombstone), and two records at one ts."""
    v1, v2 = rec("/a/k", T0 + 1, b"one"), rec("/a/k", T0 + 2, b"two")
    t3, v4 = rec("/a/k", T0 + 3, None), rec("/a/k", T0 + 4, b"back")
    x, y = rec("/a/k", T0 + 5, b"x"), rec("/a/k", T0 + 5, b"y")
    lww = ["notes:1.2", "row:21", "attack:27"]
    tie = ["notes:1.2", "row:21", "attack:26"]
    tombstone = ["notes:1.2", "row:16", "attack:28"]
    cases: list[tuple[str, str, list[str], list[Op], list[str]]] = [
        ("newer-wins", "v1 then v2.", ["Lww"], [v1, v2], ["notes:1.2", "row:21"]),
        ("older-after-newer-is-stale", "v2 then v1.", ["Lww", "Stale"], [v2, v1], lww),
        ("identical-twice-agrees", "v1 twice.", ["Idempotent"], [v1, v1], lww),
        (
            "equal-ts-order-xy",
            "Two records at one ts, x first.",
            ["TieBreak", "GoHole"],
            [x, y],
            tie,
        ),
        (
            "equal-ts-order-yx",
            "The same two, y first: the same winner.",
            ["TieBreak", "GoHole"],
            [y, x],
            tie,
        ),
        (
            "tombstone-beats-older-value",
            "v2 then a tombstone at T0+3.",
            ["Tombstone"],
            [v2, t3],
            tombstone,
        ),
        (
            "older-value-after-tombstone",
            "Tombstone, then v2 (older).",
            ["Tombstone", "Stale"],
            [t3, v2],
            tombstone,
        ),
        (
            "newer-value-resurrects",
            "Tombstone, then a newer value.",
            ["Tombstone"],
            [t3, v4],
            tombstone,
        ),
        (
            "tombstone-for-unknown-key",
            "A tombstone reaches a store that never saw the key.",
            ["Tombstone"],
            [t3],
            tombstone,
        ),
        (
            "local-write-older-than-stored",
            "A local write older than the stored value is "
            "refused by the same rule (Go's ctl overwrote).",
            ["Stale", "GoHole"],
            [v4, v1],
            ["notes:3.4", "row:32", "attack:29"],
        ),
    ]
    for name, comment, flags, ops, rules in cases:
        g.case(name, comment, flags=flags, input=applying(ops), expect="valid", rules=rules)


@case
def clock_skew(g: BoundGroup) -> None:
    far = rec("/a/f", NOW + SKEW + 1, b"future")
    cases: list[tuple[str, str, list[str], list[Op]]] = [
        (
            "skew-beyond-deferred-then-accepted",
            "ts = now + skew + 1 ms is deferred; the same record 1 ms later is accepted.",
            ["ClockSkew", "GoHole"],
            [far, (far, NOW + 1)],
        ),
        (
            "skew-at-limit-accepted",
            "ts = now + skew.",
            ["ClockSkew"],
            [rec("/a/f", NOW + SKEW, b"edge")],
        ),
        (
            "skew-within-accepted",
            "ts = now + skew - 1 ms.",
            ["ClockSkew"],
            [rec("/a/f", NOW + SKEW - 1, b"near")],
        ),
    ]
    for name, comment, flags, ops in cases:
        g.case(
            name,
            comment,
            flags=flags,
            input=applying(ops),
            expect="valid",
            rules=["row:22", "attack:25"],
        )


@case
def revocation_effects(g: BoundGroup) -> None:
    """alice's old /a/k and bob's newer one through root -> bob /a/**; the root revokes that
    grant, or its grant to alice."""
    old = rec("/a/k", T0 + 1, b"old")
    g_bob = issue_grant(ROOT.seed, BOB.pk, "/a/**", subgrant=False, issued_at=T0)
    new = make_record(BOB.seed, "/a/k", T0 + 9, b"new", [g_bob])
    revoke_bob = revoke_grant(ROOT.seed, g_bob, T0 + 20, ROOT.pk)
    revoke_alice = revoke_grant(ROOT.seed, G_ALICE, T0 + 20, ROOT.pk)
    forged = signed(MALLORY.seed, revocation_body(g_bob, MALLORY.pk, T0 + 20))
    # Re-SET the same bytes under a new chain before revoking the old one.
    reset = make_record(
        ALICE.seed, "/a/k", T0 + 30, b"old", [root_grant("/a/k", ALICE.pk, subgrant=False)]
    )
    recipe = ["design:revocation", "attack:22"]
    cases: list[tuple[str, str, list[str], list[Op], list[str]]] = [
        (
            "revocation-purges-then-older-wins",
            "old (alice), new (bob), revoke bob's grant: the "
            "key is purged; new is refused again; old is accepted again.",
            ["RevocationEffect"],
            [old, new, revoke_bob, new, old],
            ["notes:2.2", "row:15", "attack:20", "attack:21"],
        ),
        (
            "revocation-before-grant-seen",
            "The revocation arrives before any record using it.",
            ["RevocationEffect"],
            [revoke_bob, new],
            ["notes:2.2", "row:15", "attack:23"],
        ),
        (
            "revocation-twice",
            "The same revocation twice.",
            ["Idempotent"],
            [new, revoke_bob, revoke_bob],
            ["notes:2.2", "attack:24"],
        ),
        (
            "revocation-spares-other-chains",
            "Revoking root -> alice purges alice's records only.",
            ["RevocationEffect"],
            [
                old,
                rec("/r", T0 + 1, b"root", seed=ROOT.seed, chain=[]),
                rec("/a/z", T0, b"z"),
                revoke_alice,
            ],
            ["notes:2.2", "row:15"],
        ),
        (
            "revocation-bad-revoker-ignored",
            "mallory's revocation of bob's grant changes nothing.",
            ["RevocationEffect"],
            [new, forged],
            ["row:13", "attack:19"],
        ),
        (
            "safest-revocation-recipe",
            "Re-SET of identical bytes under a new chain, then the "
            "revocation: the key never ends absent (Go never propagates the re-SET).",
            ["RevocationEffect", "GoHole"],
            [old, reset, revoke_alice],
            recipe,
        ),
        (
            "safest-recipe-revocation-first",
            "The revocation first: absent, then the re-SET.",
            ["RevocationEffect"],
            [old, revoke_alice, reset],
            recipe,
        ),
    ]
    for name, comment, flags, ops, rules in cases:
        g.case(name, comment, flags=flags, input=applying(ops), expect="valid", rules=rules)


def build(strict: bool = True) -> SuiteBuilder:
    suite = new_suite("store", " ".join(HEADER), FLAGS, strict=strict)
    case.fill(suite.group("kv_apply", rootKey=ROOT.pk.hex(), skewMs=SKEW))
    return suite
