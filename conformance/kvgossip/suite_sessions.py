"""Sync-session vectors, protocol 2, message by message, both roles, and push and fetch (notes
3.5; table rows 22-26; section 5 cases 20, 26, 31; decisions K5-K10)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from swarmconf.spec.kvgossip import recon
from swarmconf.spec.kvgossip.grants import Revocation, issue_grant, revoke_grant
from swarmconf.spec.kvgossip.messages import message
from swarmconf.spec.kvgossip.records import Record, make_record
from swarmconf.spec.kvgossip.session import DEFAULT_MAX_LOOPS
from swarmconf.spec.kvgossip.state import DEFAULT_SKEW_MS, MemoryStore

from .base import Flag, Suite, add
from .world import ALICE, BOB, G_ALICE, NOW, ROOT, T0

FLAGS = {
    "Honest": Flag("BASIC", "Two honest sessions talk to the end.", "The transcript as given."),
    "Revocations": Flag(
        "FUNCTIONALITY",
        "Revocations are exchanged before records, or ride back on a RESULTS.",
        "Both sides end with the union; voided records are purged.",
    ),
    "TieBreak": Flag(
        "CONFLICT",
        "Equal timestamps, different records (Go: sessions repeat forever).",
        "Both sides converge to the larger entry_hash.",
    ),
    "PerRecordRejection": Flag(
        "FUNCTIONALITY",
        "A record fails to verify or is deferred inside a pass.",
        "A rejecting outcome in RESULTS; the pass goes on; the session is not aborted.",
    ),
    "MaxLoops": Flag(
        "EDGE_CASE", "The hashes still differ after every pass.", "At most 3 passes, then BYE."
    ),
    "ProtocolViolation": Flag(
        "MODIFIED_PARAMETER",
        "The peer breaks the protocol.",
        "The session aborts with a reason; only fully applied records remain.",
    ),
}


def snap(records: Sequence[Record] = (), revocations: Sequence[Revocation] = ()) -> dict[str, Any]:
    """A store snapshot for a vector input."""
    return {
        "records": [r.encode().hex() for r in records],
        "revocations": [r.encode().hex() for r in revocations],
    }


def hello(records: Sequence[Record] = (), revocations: Sequence[Revocation] = ()) -> bytes:
    """The HELLO a peer holding exactly this state sends."""
    store = MemoryStore(records, revocations)
    tree, count = store.tree_hash(), store.count()
    return message("HELLO", 2, b"peer", store.revset_hash(), tree, count)


def build(strict: bool = True) -> Suite:
    suite = Suite(
        "sessions",
        [
            "transcript: load both snapshots, run the initiator and responder against each other",
            "at `now` until neither sends; every frame in order and both end states.",
            "scripted: load one role's snapshot, call start(now), then feed the peer's frames one",
            "by one (then a timeout if set); the frames sent after each, and how it ended.",
            "push: load the snapshot and answer one PUSH or FETCH frame at `now`; the reply and",
            "the end state.",
        ],
        FLAGS,
    )
    params = {"rootKey": ROOT.pk.hex(), "skewMs": DEFAULT_SKEW_MS, "maxLoops": DEFAULT_MAX_LOOPS}
    tr = suite.group("transcript", **params)
    rules = ["notes:3.5", "row:24", "row:25"]

    def transcript(
        name: str,
        comment: str,
        flags: list[str],
        a: dict[str, Any],
        b: dict[str, Any],
        extra: tuple[str, ...] = (),
    ) -> None:
        add(
            suite,
            tr,
            name,
            comment,
            flags=flags,
            rules=rules + list(extra),
            input={"initiator": a, "responder": b, "now": NOW},
            want="valid",
            strict=strict,
        )

    def rec(key: str, ts: int, value: bytes | None, seed: bytes = ALICE.seed) -> Record:
        return make_record(seed, key, ts, value, [] if seed == ROOT.seed else [G_ALICE])

    x1, x2 = rec("/a/x", T0 + 1, b"1"), rec("/a/x", T0 + 2, b"2")
    y = rec("/a/y", T0 + 3, b"y")
    r = rec("/r", T0 + 4, b"root", ROOT.seed)
    transcript("both-empty", "Equal empty stores: HELLO, HELLO, BYE.", ["Honest"], snap(), snap())
    transcript(
        "equal-stores", "Equal stores: HELLO, HELLO, BYE.", ["Honest"], snap([x1, y]), snap([y, x1])
    )
    transcript(
        "initiator-newer",
        "A's /a/x is newer: A sends it in RECORDS after reconciling; B accepts.",
        ["Honest"],
        snap([x2]),
        snap([x1]),
    )
    transcript(
        "responder-newer",
        "B's /a/x is newer: A asks for it with WANT and accepts.",
        ["Honest"],
        snap([x1]),
        snap([x2]),
    )
    transcript(
        "responder-only-keys",
        "B holds keys A lacks: one WANT, one RECORDS, one RESULTS.",
        ["Honest"],
        snap([x1]),
        snap([x1, y, r]),
    )
    transcript(
        "mixed",
        "Keys flow both ways in one pass.",
        ["Honest"],
        snap([x2, r]),
        snap([x1, y]),
    )
    tomb = rec("/a/y", T0 + 9, None)
    transcript(
        "tombstone-propagates",
        "A tombstone replaces the value.",
        ["Honest"],
        snap([tomb]),
        snap([y]),
        ("attack:28",),
    )
    reset = rec("/a/x", T0 + 2, b"1")
    transcript(
        "reset-same-value-syncs",
        "B re-SET /a/x to the same bytes later: the tree hashes differ (Go's are equal, so Go "
        "says BYE and the re-SET never spreads).",
        ["Honest"],
        snap([x1]),
        snap([reset]),
        ("row:19", "row:20", "attack:22", "attack:30"),
    )
    p = rec("/a/t", T0 + 5, b"p")
    q = rec("/a/t", T0 + 5, b"q")
    transcript(
        "equal-ts-converge",
        "Equal ts, different records: both keep the larger hash.",
        ["TieBreak"],
        snap([p]),
        snap([q]),
        ("row:21", "attack:26"),
    )
    g = issue_grant(ROOT.seed, BOB.pk, "/a/**", subgrant=False, issued_at=T0)
    bobs = make_record(BOB.seed, "/a/x", T0 + 7, b"bob", [g])
    revocation = revoke_grant(ROOT.seed, g, T0 + 20, ROOT.pk)
    transcript(
        "revocations-first",
        "B knows a revocation A lacks: REVS, REVS, REVDATA, "
        "REVDATA; A purges bob's record; A then takes B's older /a/x.",
        ["Revocations"],
        snap([bobs]),
        snap([x1], [revocation]),
        ("row:14", "row:26", "attack:21"),
    )
    future = rec("/a/f", NOW + DEFAULT_SKEW_MS + 1, b"soon")
    transcript(
        "deferred-record-max-loops",
        "A's record is beyond B's clock + skew: deferred in every pass; three passes, then BYE.",
        ["PerRecordRejection", "MaxLoops"],
        snap([future]),
        snap(),
        ("row:22", "attack:25"),
    )
    forged = make_record(BOB.seed, "/a/z", T0 + 8, b"evil", [G_ALICE])
    transcript(
        "unauthorised-record-rejected",
        "A holds a record bob signed with alice's chain "
        "(a buggy store): B rejects it and accepts the next record of the batch.",
        ["PerRecordRejection", "MaxLoops"],
        snap([forged, x1]),
        snap(),
        ("attack:9",),
    )

    sc = suite.group("scripted", **params)

    def scripted(
        name: str,
        comment: str,
        flags: list[str],
        role: str,
        store: dict[str, Any],
        frames: list[bytes],
        want: str,
        reason: str | None = None,
        timeout: bool = False,
        extra: tuple[str, ...] = ("attack:31",),
    ) -> None:
        add(
            suite,
            sc,
            name,
            comment,
            flags=flags,
            rules=rules + list(extra),
            input={
                "role": role,
                "store": store,
                "now": NOW,
                "frames": [f.hex() for f in frames],
                "timeout": timeout,
            },
            want=want,
            reason=reason,
            strict=strict,
        )

    def recon_reply(peer: Sequence[Record], mine: Sequence[Record]) -> bytes:
        """The RECON a responder holding `peer` sends to the first RECON of one holding `mine`."""
        first = recon.initiate(MemoryStore(mine).sync_items())
        return message("RECON", recon.step(MemoryStore(peer).sync_items(), first, False).reply)

    def opening(records: Sequence[Record]) -> bytes:
        """The first RECON an initiator holding `records` sends."""
        return message("RECON", recon.initiate(MemoryStore(records).sync_items()))

    def tree(records: Sequence[Record]) -> bytes:
        return message("TREE", MemoryStore(records).tree_hash(), len(records))

    differ = hello([x2])
    base = snap([x1])
    scripted(
        "responder-unsolicited-results",
        "RESULTS before any HELLO.",
        ["ProtocolViolation"],
        "responder",
        base,
        [message("RESULTS", ["accepted"], [""], [], [])],
        "invalid",
        "SESSION_UNEXPECTED_MESSAGE",
    )
    scripted(
        "responder-hello-twice",
        "A second HELLO.",
        ["ProtocolViolation"],
        "responder",
        base,
        [differ, differ],
        "invalid",
        "SESSION_UNEXPECTED_MESSAGE",
    )
    scripted(
        "responder-wrong-protocol",
        "HELLO with protocol 1 (the per-key walk).",
        ["ProtocolViolation"],
        "responder",
        base,
        [message("HELLO", 1, b"peer", bytes(32), bytes(32), 0)],
        "invalid",
        "SESSION_PROTOCOL_VERSION",
    )
    scripted(
        "responder-garbage-frame",
        "A frame that is not msgpack.",
        ["ProtocolViolation"],
        "responder",
        base,
        [b"\xc1\x00"],
        "invalid",
        "SESSION_BAD_MESSAGE",
    )
    scripted(
        "responder-unknown-message",
        "A frame naming no message.",
        ["ProtocolViolation"],
        "responder",
        base,
        [message("HI")],
        "invalid",
        "SESSION_BAD_MESSAGE",
    )
    scripted(
        "responder-bad-recon",
        "A RECON that is not Negentropy V1.",
        ["ProtocolViolation"],
        "responder",
        base,
        [differ, message("RECON", b"\x60")],
        "invalid",
        "SESSION_BAD_MESSAGE",
        extra=("attack:31", "sync:K2"),
    )
    scripted(
        "responder-want-before-recon",
        "A WANT before any pass began.",
        ["ProtocolViolation"],
        "responder",
        base,
        [differ, message("WANT", [x1.entry_hash])],
        "invalid",
        "SESSION_UNEXPECTED_MESSAGE",
    )
    scripted(
        "responder-duplicate-key",
        "Two records of /a/x in one pass.",
        ["ProtocolViolation"],
        "responder",
        base,
        [differ, opening([x2]), message("RECORDS", [x2.encode(), x2.encode()])],
        "invalid",
        "SESSION_DUPLICATE_KEY",
    )
    scripted(
        "responder-atomic-before-abort",
        "/a/x is applied, then a violation: /a/x stays.",
        ["ProtocolViolation"],
        "responder",
        base,
        [differ, opening([x2]), message("RECORDS", [x2.encode()]), differ],
        "invalid",
        "SESSION_UNEXPECTED_MESSAGE",
    )
    scripted(
        "responder-too-many-passes",
        "A fourth pass.",
        ["ProtocolViolation", "MaxLoops"],
        "responder",
        base,
        [hello()] + [opening([]), tree([])] * 3 + [opening([])],
        "invalid",
        "SESSION_TOO_MANY_PASSES",
        extra=("attack:31", "sync:K6"),
    )
    scripted(
        "responder-too-many-rounds",
        "A 33rd RECON in one pass.",
        ["ProtocolViolation"],
        "responder",
        base,
        [differ] + [opening([x2])] * 33,
        "invalid",
        "SESSION_TOO_MANY_ROUNDS",
        extra=("attack:31", "sync:K6"),
    )
    scripted(
        "responder-results-miscounted",
        "RESULTS with two outcomes for a RECORDS of one record.",
        ["ProtocolViolation"],
        "responder",
        base,
        [
            differ,
            opening([x2]),
            message("WANT", [x1.entry_hash]),
            message("RESULTS", ["stale", "stale"], ["STALE", "STALE"], [], []),
        ],
        "invalid",
        "SESSION_BAD_MESSAGE",
        extra=("attack:31", "sync:K7"),
    )
    scripted(
        "responder-serves-want",
        "A WANT for /a/x and an unknown id: RECORDS holds /a/x alone; a clean pass and BYE.",
        ["Honest"],
        "responder",
        base,
        [
            differ,
            opening([x2]),
            message("WANT", [x1.entry_hash, bytes(32)]),
            message("RESULTS", ["stale"], ["STALE"], [], []),
            tree([x2]),
            message("BYE"),
        ],
        "valid",
        extra=("sync:K7", "sync:K8"),
    )
    scripted(
        "responder-timeout",
        "The peer goes silent after HELLO.",
        ["ProtocolViolation"],
        "responder",
        base,
        [differ],
        "invalid",
        "SESSION_TIMEOUT",
        timeout=True,
    )
    scripted(
        "responder-frame-after-bye",
        "A frame after BYE.",
        ["ProtocolViolation"],
        "responder",
        base,
        [hello([x1]), message("BYE"), message("BYE")],
        "invalid",
        "SESSION_CLOSED",
    )
    scripted(
        "responder-revoked-record-gets-revocation",
        "The peer skips the revocation exchange and sends bob's revoked record: RESULTS "
        "rejected, REVOKED, the revocation and B's own record attached; no abort.",
        ["PerRecordRejection", "Revocations"],
        "responder",
        snap([x1], [revocation]),
        [
            hello([bobs], [revocation]),
            opening([bobs]),
            message("RECORDS", [bobs.encode()]),
            tree([bobs]),
            message("BYE"),
        ],
        "valid",
        extra=("attack:20", "sync:K7"),
    )
    scripted(
        "initiator-unrequested-record",
        "The responder answers a WANT for /a/x with /a/y's record; nothing is applied.",
        ["ProtocolViolation"],
        "initiator",
        snap([x1]),
        [hello([x2]), recon_reply([x2], [x1]), message("RECORDS", [y.encode()])],
        "invalid",
        "SESSION_NOT_REQUESTED",
        extra=("attack:31", "sync:K8"),
    )
    scripted(
        "initiator-unexpected-records",
        "RECORDS while no WANT is open.",
        ["ProtocolViolation"],
        "initiator",
        snap([x1]),
        [hello([x2]), message("RECORDS", [x2.encode()])],
        "invalid",
        "SESSION_UNEXPECTED_MESSAGE",
    )
    scripted(
        "initiator-full-pass",
        "A clean pass seen from the initiator: RECON, WANT /a/y, RESULTS, equal trees, BYE.",
        ["Honest"],
        "initiator",
        snap([x1]),
        [
            hello([x1, y]),
            recon_reply([x1, y], [x1]),
            message("RECORDS", [y.encode()]),
            tree([x1, y]),
        ],
        "valid",
        extra=("sync:K6", "sync:K7"),
    )
    scripted(
        "initiator-stale-fetch-returns-own",
        "A fetches B's older /a/x: STALE, A's own record goes back in RESULTS and is not sent "
        "again as a record B lacks.",
        ["Honest"],
        "initiator",
        snap([x2]),
        [hello([x1]), recon_reply([x1], [x2]), message("RECORDS", [x1.encode()]), tree([x2])],
        "valid",
        extra=("sync:K7",),
    )

    pu = suite.group("push", **params)

    def push(
        name: str,
        comment: str,
        flags: list[str],
        store: dict[str, Any],
        frame: bytes,
        want: str = "valid",
        reason: str | None = None,
    ) -> None:
        add(
            suite,
            pu,
            name,
            comment,
            flags=flags,
            rules=[*rules, "sync:K9", "sync:K10"],
            input={"store": store, "now": NOW, "frame": frame.hex()},
            want=want,
            reason=reason,
            strict=strict,
        )

    push(
        "push-new",
        "A pushed record new here: accepted.",
        ["Honest"],
        base,
        message("PUSH", [x2.encode()]),
    )
    push(
        "push-stale",
        "A pushed older record: STALE and the local one goes back.",
        ["Honest"],
        snap([x2]),
        message("PUSH", [x1.encode()]),
    )
    push(
        "push-revoked",
        "bob's revoked record: REJECTED, REVOKED, the revocation attached.",
        ["PerRecordRejection", "Revocations"],
        snap([x1], [revocation]),
        message("PUSH", [bobs.encode()]),
    )
    push(
        "push-garbage-record",
        "Bytes that are no record: REJECTED, nothing stored.",
        ["PerRecordRejection"],
        base,
        message("PUSH", [b"\x90"]),
    )
    push(
        "fetch-present-and-absent",
        "FETCH /a/x and /a/none: RECORDS holds /a/x alone.",
        ["Honest"],
        base,
        message("FETCH", ["/a/x", "/a/none"]),
    )
    push(
        "push-wrong-message",
        "A HELLO where PUSH or FETCH belongs.",
        ["ProtocolViolation"],
        base,
        differ,
        "invalid",
        "SESSION_UNEXPECTED_MESSAGE",
    )
    return suite
