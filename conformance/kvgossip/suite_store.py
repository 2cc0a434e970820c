"""Store vectors: LWW, tombstones, revocation effects and clock-skew deferral, as sequences of
records and revocations applied to an empty store (notes 1.2, 2.2, 3.5; table rows 15, 16, 21,
22, 32; section 5 cases 19-29)."""

from __future__ import annotations

from typing import Any

from swarmconf.conformance.catalogue import Catalogue
from swarmconf.spec.kvgossip.grants import (
    Grant,
    Revocation,
    issue_grant,
    revocation_body,
    revoke_grant,
)
from swarmconf.spec.kvgossip.records import Record, make_record
from swarmconf.spec.kvgossip.state import DEFAULT_SKEW_MS

from .base import Flag, Suite, add
from .craft import signed
from .world import ALICE, BOB, G_ALICE, MALLORY, NOW, ROOT, T0, root_grant

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
    """A record signed by `seed` (alice, through root -> alice, unless told otherwise)."""
    return make_record(seed, key, ts, value, [G_ALICE] if chain is None else chain)


class Applying:
    """The suite and its one group: ops applied in order to an empty store."""

    def __init__(self, strict: bool) -> None:
        self.suite = Suite("store", HEADER, FLAGS)
        self.group = self.suite.group("apply", rootKey=ROOT.pk.hex(), skewMs=SKEW)
        self.strict = strict
        # Made when the suite is built (under a mutant, if one is active).
        self.v1, self.v2 = rec("/a/k", T0 + 1, b"one"), rec("/a/k", T0 + 2, b"two")
        self.t3 = rec("/a/k", T0 + 3, None)
        self.v4 = rec("/a/k", T0 + 4, b"back")
        self.old = rec("/a/k", T0 + 1, b"old")
        self.g_bob_a = issue_grant(ROOT.seed, BOB.pk, "/a/**", subgrant=False, issued_at=T0)
        self.new = make_record(BOB.seed, "/a/k", T0 + 9, b"new", [self.g_bob_a])
        self.revoke_bob = revoke_grant(ROOT.seed, self.g_bob_a, T0 + 20, ROOT.pk)
        self.revoke_alice = revoke_grant(ROOT.seed, G_ALICE, T0 + 20, ROOT.pk)

    def case(
        self, name: str, comment: str, flags: list[str], ops: list[Op], rules: tuple[str, ...]
    ) -> None:
        encoded: list[dict[str, Any]] = []
        for op in ops:
            if isinstance(op, Revocation | bytes):
                raw = op if isinstance(op, bytes) else op.encode()
                encoded.append({"op": "revocation", "bytes": raw.hex(), "now": NOW})
            else:
                record, now = op if isinstance(op, tuple) else (op, NOW)
                encoded.append({"op": "record", "bytes": record.encode().hex(), "now": now})
        add(
            self.suite,
            self.group,
            name,
            comment,
            flags=flags,
            rules=list(rules),
            input={"ops": encoded},
            want="valid",
            strict=self.strict,
        )


case = Catalogue[Applying]()


@case
def last_writer_wins(a: Applying) -> None:
    rules = ("notes:1.2", "row:21", "attack:27")
    a.case("newer-wins", "v1 then v2.", ["Lww"], [a.v1, a.v2], ("notes:1.2", "row:21"))
    a.case("older-after-newer-is-stale", "v2 then v1.", ["Lww", "Stale"], [a.v2, a.v1], rules)
    a.case("identical-twice-agrees", "v1 twice.", ["Idempotent"], [a.v1, a.v1], rules)


@case
def equal_timestamps(a: Applying) -> None:
    x, y = rec("/a/k", T0 + 5, b"x"), rec("/a/k", T0 + 5, b"y")
    rules = ("notes:1.2", "row:21", "attack:26")
    flags = ["TieBreak", "GoHole"]
    a.case("equal-ts-order-xy", "Two records at one ts, x first.", flags, [x, y], rules)
    a.case("equal-ts-order-yx", "The same two, y first: the same winner.", flags, [y, x], rules)


@case
def tombstones(a: Applying) -> None:
    rules = ("notes:1.2", "row:16", "attack:28")
    a.case(
        "tombstone-beats-older-value",
        "v2 then a tombstone at T0+3.",
        ["Tombstone"],
        [a.v2, a.t3],
        rules,
    )
    a.case(
        "older-value-after-tombstone",
        "Tombstone, then v2 (older).",
        ["Tombstone", "Stale"],
        [a.t3, a.v2],
        rules,
    )
    a.case(
        "newer-value-resurrects",
        "Tombstone, then a newer value.",
        ["Tombstone"],
        [a.t3, a.v4],
        rules,
    )
    a.case(
        "tombstone-for-unknown-key",
        "A tombstone reaches a store that never saw the key.",
        ["Tombstone"],
        [a.t3],
        rules,
    )


@case
def local_write_older_than_stored(a: Applying) -> None:
    a.case(
        "local-write-older-than-stored",
        "A local write older than the stored value is "
        "refused by the same rule (Go's ctl overwrote).",
        ["Stale", "GoHole"],
        [a.v4, a.v1],
        ("notes:3.4", "row:32", "attack:29"),
    )


@case
def clock_skew(a: Applying) -> None:
    rules = ("row:22", "attack:25")
    far = rec("/a/f", NOW + SKEW + 1, b"future")
    a.case(
        "skew-beyond-deferred-then-accepted",
        "ts = now + skew + 1 ms is deferred; the same record 1 ms later is accepted.",
        ["ClockSkew", "GoHole"],
        [far, (far, NOW + 1)],
        rules,
    )
    edge, near = rec("/a/f", NOW + SKEW, b"edge"), rec("/a/f", NOW + SKEW - 1, b"near")
    a.case("skew-at-limit-accepted", "ts = now + skew.", ["ClockSkew"], [edge], rules)
    a.case("skew-within-accepted", "ts = now + skew - 1 ms.", ["ClockSkew"], [near], rules)


@case
def revocation_effects(a: Applying) -> None:
    a.case(
        "revocation-purges-then-older-wins",
        "old (alice), new (bob), revoke bob's grant: the "
        "key is purged; new is refused again; old is accepted again.",
        ["RevocationEffect"],
        [a.old, a.new, a.revoke_bob, a.new, a.old],
        ("notes:2.2", "row:15", "attack:20", "attack:21"),
    )
    a.case(
        "revocation-before-grant-seen",
        "The revocation arrives before any record using it.",
        ["RevocationEffect"],
        [a.revoke_bob, a.new],
        ("notes:2.2", "row:15", "attack:23"),
    )
    a.case(
        "revocation-twice",
        "The same revocation twice.",
        ["Idempotent"],
        [a.new, a.revoke_bob, a.revoke_bob],
        ("notes:2.2", "attack:24"),
    )


@case
def revocation_spares_other_chains(a: Applying) -> None:
    root_rec = rec("/r", T0 + 1, b"root", seed=ROOT.seed, chain=[])
    a.case(
        "revocation-spares-other-chains",
        "Revoking root -> alice purges alice's records only.",
        ["RevocationEffect"],
        [a.old, root_rec, rec("/a/z", T0, b"z"), a.revoke_alice],
        ("notes:2.2", "row:15"),
    )


@case
def revocation_bad_revoker_ignored(a: Applying) -> None:
    forged = signed(MALLORY.seed, revocation_body(a.g_bob_a, MALLORY.pk, T0 + 20))
    a.case(
        "revocation-bad-revoker-ignored",
        "mallory's revocation of bob's grant changes nothing.",
        ["RevocationEffect"],
        [a.new, forged],
        ("row:13", "attack:19"),
    )


@case
def safest_revocation_recipe(a: Applying) -> None:
    """Re-SET the same bytes under a new chain before revoking the old one."""
    g3 = root_grant("/a/k", ALICE.pk, subgrant=False)
    reset = make_record(ALICE.seed, "/a/k", T0 + 30, b"old", [g3])
    rules = ("design:revocation", "attack:22")
    a.case(
        "safest-revocation-recipe",
        "Re-SET of identical bytes under a new chain, then the "
        "revocation: the key never ends absent (Go never propagates the re-SET).",
        ["RevocationEffect", "GoHole"],
        [a.old, reset, a.revoke_alice],
        rules,
    )
    a.case(
        "safest-recipe-revocation-first",
        "The revocation first: absent, then the re-SET.",
        ["RevocationEffect"],
        [a.old, a.revoke_alice, reset],
        rules,
    )


def build(strict: bool = True) -> Suite:
    return case.fill(Applying(strict)).suite
