"""Store vectors: LWW, tombstones, revocation effects and clock-skew deferral, as sequences of
records and revocations applied to an empty store (notes 1.2, 2.2, 3.5; table rows 15, 16, 21,
22, 32; section 5 cases 19-29)."""

from __future__ import annotations

from typing import Any

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


def build(strict: bool = True) -> Suite:
    suite = Suite(
        "store",
        [
            "Apply each op in order to an empty store (records with their `now`, revocations),",
            "then report every op's outcome (records: accepted, agree, stale, rejected, deferred;",
            "revocations: new, known, rejected, with the keys purged) and the final state.",
        ],
        FLAGS,
    )
    group = suite.group("apply", rootKey=ROOT.pk.hex(), skewMs=DEFAULT_SKEW_MS)

    def case(
        name: str, comment: str, flags: list[str], ops: list[Op], rules: tuple[str, ...]
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
            suite,
            group,
            name,
            comment,
            flags=flags,
            rules=list(rules),
            input={"ops": encoded},
            want="valid",
            strict=strict,
        )

    def rec(
        key: str,
        ts: int,
        value: bytes | None,
        seed: bytes = ALICE.seed,
        chain: list[Grant] | None = None,
    ) -> Record:
        return make_record(seed, key, ts, value, [G_ALICE] if chain is None else chain)

    v1, v2 = rec("/a/k", T0 + 1, b"one"), rec("/a/k", T0 + 2, b"two")
    case("newer-wins", "v1 then v2.", ["Lww"], [v1, v2], ("notes:1.2", "row:21"))
    case(
        "older-after-newer-is-stale",
        "v2 then v1.",
        ["Lww", "Stale"],
        [v2, v1],
        ("notes:1.2", "row:21", "attack:27"),
    )
    case(
        "identical-twice-agrees",
        "v1 twice.",
        ["Idempotent"],
        [v1, v1],
        ("notes:1.2", "row:21", "attack:27"),
    )
    x, y = rec("/a/k", T0 + 5, b"x"), rec("/a/k", T0 + 5, b"y")
    case(
        "equal-ts-order-xy",
        "Two records at one ts, x first.",
        ["TieBreak", "GoHole"],
        [x, y],
        ("notes:1.2", "row:21", "attack:26"),
    )
    case(
        "equal-ts-order-yx",
        "The same two, y first: the same winner.",
        ["TieBreak", "GoHole"],
        [y, x],
        ("notes:1.2", "row:21", "attack:26"),
    )
    t3 = rec("/a/k", T0 + 3, None)
    case(
        "tombstone-beats-older-value",
        "v2 then a tombstone at T0+3.",
        ["Tombstone"],
        [v2, t3],
        ("notes:1.2", "row:16", "attack:28"),
    )
    case(
        "older-value-after-tombstone",
        "Tombstone, then v2 (older).",
        ["Tombstone", "Stale"],
        [t3, v2],
        ("notes:1.2", "row:16", "attack:28"),
    )
    v4 = rec("/a/k", T0 + 4, b"back")
    case(
        "newer-value-resurrects",
        "Tombstone, then a newer value.",
        ["Tombstone"],
        [t3, v4],
        ("notes:1.2", "row:16", "attack:28"),
    )
    case(
        "tombstone-for-unknown-key",
        "A tombstone reaches a store that never saw the key.",
        ["Tombstone"],
        [t3],
        ("notes:1.2", "row:16", "attack:28"),
    )
    case(
        "local-write-older-than-stored",
        "A local write older than the stored value is "
        "refused by the same rule (Go's ctl overwrote).",
        ["Stale", "GoHole"],
        [v4, v1],
        ("notes:3.4", "row:32", "attack:29"),
    )
    skew = DEFAULT_SKEW_MS
    far = rec("/a/f", NOW + skew + 1, b"future")
    case(
        "skew-beyond-deferred-then-accepted",
        "ts = now + skew + 1 ms is deferred; the same record 1 ms later is accepted.",
        ["ClockSkew", "GoHole"],
        [far, (far, NOW + 1)],
        ("row:22", "attack:25"),
    )
    case(
        "skew-at-limit-accepted",
        "ts = now + skew.",
        ["ClockSkew"],
        [rec("/a/f", NOW + skew, b"edge")],
        ("row:22", "attack:25"),
    )
    case(
        "skew-within-accepted",
        "ts = now + skew - 1 ms.",
        ["ClockSkew"],
        [rec("/a/f", NOW + skew - 1, b"near")],
        ("row:22", "attack:25"),
    )
    g2 = issue_grant(ROOT.seed, BOB.pk, "/a/**", subgrant=False, issued_at=T0)
    old = rec("/a/k", T0 + 1, b"old")
    new = make_record(BOB.seed, "/a/k", T0 + 9, b"new", [g2])
    revoke_g2 = revoke_grant(ROOT.seed, g2, T0 + 20, ROOT.pk)
    case(
        "revocation-purges-then-older-wins",
        "old (alice), new (bob), revoke bob's grant: the "
        "key is purged; new is refused again; old is accepted again.",
        ["RevocationEffect"],
        [old, new, revoke_g2, new, old],
        ("notes:2.2", "row:15", "attack:20", "attack:21"),
    )
    case(
        "revocation-before-grant-seen",
        "The revocation arrives before any record using it.",
        ["RevocationEffect"],
        [revoke_g2, new],
        ("notes:2.2", "row:15", "attack:23"),
    )
    case(
        "revocation-twice",
        "The same revocation twice.",
        ["Idempotent"],
        [new, revoke_g2, revoke_g2],
        ("notes:2.2", "attack:24"),
    )
    by_root = revoke_grant(ROOT.seed, G_ALICE, T0 + 20, ROOT.pk)
    root_rec = rec("/r", T0 + 1, b"root", seed=ROOT.seed, chain=[])
    case(
        "revocation-spares-other-chains",
        "Revoking root -> alice purges alice's records only.",
        ["RevocationEffect"],
        [old, root_rec, rec("/a/z", T0, b"z"), by_root],
        ("notes:2.2", "row:15"),
    )
    forged = signed(MALLORY.seed, revocation_body(g2, MALLORY.pk, T0 + 20))
    case(
        "revocation-bad-revoker-ignored",
        "mallory's revocation of bob's grant changes nothing.",
        ["RevocationEffect"],
        [new, forged],
        ("row:13", "attack:19"),
    )
    g3 = root_grant("/a/k", ALICE.pk, subgrant=False)
    reset = make_record(ALICE.seed, "/a/k", T0 + 30, b"old", [g3])
    case(
        "safest-revocation-recipe",
        "Re-SET of identical bytes under a new chain, then the "
        "revocation: the key never ends absent (Go never propagates the re-SET).",
        ["RevocationEffect", "GoHole"],
        [old, reset, by_root],
        ("design:revocation", "attack:22"),
    )
    case(
        "safest-recipe-revocation-first",
        "The revocation first: absent, then the re-SET.",
        ["RevocationEffect"],
        [old, by_root, reset],
        ("design:revocation", "attack:22"),
    )
    return suite
