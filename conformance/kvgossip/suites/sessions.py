"""Sync-session vectors, protocol 2, message by message, both roles, and push and fetch (notes
3.5; table rows 22-26; section 5 cases 20, 26, 31; decisions K5-K10)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from swarmconf.conformance.builder import BoundGroup, SuiteBuilder
from swarmconf.conformance.vectors import Flag, Json
from swarmconf.spec.kvgossip import recon
from swarmconf.spec.kvgossip.grants import Revocation, issue_grant, revoke_grant
from swarmconf.spec.kvgossip.messages import message
from swarmconf.spec.kvgossip.records import Record, make_record
from swarmconf.spec.kvgossip.session import DEFAULT_MAX_LOOPS
from swarmconf.spec.kvgossip.state import DEFAULT_SKEW_MS, MemoryStore

from ..vocabulary import new_suite
from ..world import ALICE, BOB, G_ALICE, NOW, ROOT, T0

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


HEADER = [
    "transcript: load both snapshots, run the initiator and responder against each other",
    "at `now` until neither sends; every frame in order and both end states.",
    "scripted: load one role's snapshot, call start(now), then feed the peer's frames one",
    "by one (then a timeout if set); the frames sent after each, and how it ended.",
    "push: load the snapshot and answer one PUSH or FETCH frame at `now`; the reply and",
    "the end state.",
]
RULES = ["notes:3.5", "row:24", "row:25"]
PUSH_RULES = [*RULES, "sync:K9", "sync:K10"]
PARAMS = {"rootKey": ROOT.pk.hex(), "skewMs": DEFAULT_SKEW_MS, "maxLoops": DEFAULT_MAX_LOOPS}


def rec(key: str, ts: int, value: bytes | None, seed: bytes = ALICE.seed) -> Record:
    """A record by alice under root -> alice, or by the root (signed when called: under a
    mutant, if one is active)."""
    return make_record(seed, key, ts, value, [] if seed == ROOT.seed else [G_ALICE])


@dataclass(frozen=True)
class Writes:
    """What the stores hold: alice's /a/x in two versions, her /a/y and the root's /r; bob's
    /a/x through a grant the root revokes, and that revocation."""

    x1: Record
    x2: Record
    y: Record
    r: Record
    bobs: Record
    revocation: Revocation

    @classmethod
    def signed(cls) -> Writes:
        """The writes, signed now (under a mutant, if one is active)."""
        g_bob = issue_grant(ROOT.seed, BOB.pk, "/a/**", subgrant=False, issued_at=T0)
        return cls(
            x1=rec("/a/x", T0 + 1, b"1"),
            x2=rec("/a/x", T0 + 2, b"2"),
            y=rec("/a/y", T0 + 3, b"y"),
            r=rec("/r", T0 + 4, b"root", ROOT.seed),
            bobs=make_record(BOB.seed, "/a/x", T0 + 7, b"bob", [g_bob]),
            revocation=revoke_grant(ROOT.seed, g_bob, T0 + 20, ROOT.pk),
        )

    @property
    def base(self) -> Json:
        """The store most scripted sessions run over: x1 alone."""
        return snap([self.x1])

    @property
    def differ(self) -> bytes:
        """The HELLO of a peer whose store (x2) differs from `base`."""
        return hello([self.x2])


def snap(records: Sequence[Record] = (), revocations: Sequence[Revocation] = ()) -> Json:
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


def recon_reply(peer: Sequence[Record], mine: Sequence[Record]) -> bytes:
    """The RECON a responder holding `peer` sends to the first RECON of one holding `mine`."""
    first = recon.initiate(MemoryStore(mine).sync_items())
    return message("RECON", recon.step(MemoryStore(peer).sync_items(), first, False).reply)


def opening(records: Sequence[Record]) -> bytes:
    """The first RECON an initiator holding `records` sends."""
    return message("RECON", recon.initiate(MemoryStore(records).sync_items()))


def tree(records: Sequence[Record]) -> bytes:
    """The TREE a peer holding exactly `records` sends."""
    return message("TREE", MemoryStore(records).tree_hash(), len(records))


def talking(initiator: Json, responder: Json) -> Json:
    """The input: two honest sessions, one initiating over `initiator`, one responding over
    `responder`."""
    return {"initiator": initiator, "responder": responder, "now": NOW}


def script(role: str, store: Json, frames: list[bytes], timeout: bool = False) -> Json:
    """The input: one session in `role` over `store`, fed the peer's `frames` (then a timeout)."""
    return {
        "role": role,
        "store": store,
        "now": NOW,
        "frames": [f.hex() for f in frames],
        "timeout": timeout,
    }


def pushing(store: Json, frame: bytes) -> Json:
    """The input: one PUSH or FETCH `frame` answered outside a session over `store`."""
    return {"store": store, "now": NOW, "frame": frame.hex()}


def transcripts(g: BoundGroup) -> None:
    """Two honest sessions talk to the end."""
    w = Writes.signed()
    x1, x2, y = w.x1, w.x2, w.y
    tomb, reset = rec("/a/y", T0 + 9, None), rec("/a/x", T0 + 2, b"1")
    p, q = rec("/a/t", T0 + 5, b"p"), rec("/a/t", T0 + 5, b"q")
    future = rec("/a/f", NOW + DEFAULT_SKEW_MS + 1, b"soon")
    forged = make_record(BOB.seed, "/a/z", T0 + 8, b"evil", [G_ALICE])
    honest = ["Honest"]
    rejecting = ["PerRecordRejection", "MaxLoops"]
    cases: list[tuple[str, str, list[str], Json, Json, list[str]]] = [
        ("both-empty", "Equal empty stores: HELLO, HELLO, BYE.", honest, snap(), snap(), []),
        (
            "equal-stores",
            "Equal stores: HELLO, HELLO, BYE.",
            honest,
            snap([x1, y]),
            snap([y, x1]),
            [],
        ),
        (
            "initiator-newer",
            "A's /a/x is newer: A sends it in RECORDS after reconciling; B accepts.",
            honest,
            snap([x2]),
            snap([x1]),
            [],
        ),
        (
            "responder-newer",
            "B's /a/x is newer: A asks for it with WANT and accepts.",
            honest,
            snap([x1]),
            snap([x2]),
            [],
        ),
        (
            "responder-only-keys",
            "B holds keys A lacks: one WANT, one RECORDS, one RESULTS.",
            honest,
            snap([x1]),
            snap([x1, y, w.r]),
            [],
        ),
        ("mixed", "Keys flow both ways in one pass.", honest, snap([x2, w.r]), snap([x1, y]), []),
        (
            "tombstone-propagates",
            "A tombstone replaces the value.",
            honest,
            snap([tomb]),
            snap([y]),
            ["attack:28"],
        ),
        (
            "reset-same-value-syncs",
            "B re-SET /a/x to the same bytes later: the tree hashes differ (Go's are equal, so "
            "Go says BYE and the re-SET never spreads).",
            honest,
            snap([x1]),
            snap([reset]),
            ["row:19", "row:20", "attack:22", "attack:30"],
        ),
        (
            "equal-ts-converge",
            "Equal ts, different records: both keep the larger hash.",
            ["TieBreak"],
            snap([p]),
            snap([q]),
            ["row:21", "attack:26"],
        ),
        (
            "revocations-first",
            "B knows a revocation A lacks: REVS, REVS, REVDATA, "
            "REVDATA; A purges bob's record; A then takes B's older /a/x.",
            ["Revocations"],
            snap([w.bobs]),
            snap([x1], [w.revocation]),
            ["row:14", "row:26", "attack:21"],
        ),
        (
            "deferred-record-max-loops",
            "A's record is beyond B's clock + skew: deferred in every pass; three passes, then "
            "BYE.",
            rejecting,
            snap([future]),
            snap(),
            ["row:22", "attack:25"],
        ),
        (
            "unauthorised-record-rejected",
            "A holds a record bob signed with alice's chain "
            "(a buggy store): B rejects it and accepts the next record of the batch.",
            rejecting,
            snap([forged, x1]),
            snap(),
            ["attack:9"],
        ),
    ]
    for name, comment, flags, initiator, responder, rules in cases:
        g.case(
            name,
            comment,
            flags=flags,
            input=talking(initiator, responder),
            expect="valid",
            rules=[*RULES, *rules],
        )


def scripted(g: BoundGroup) -> None:
    """One role fed the peer's frames; protocol violations abort the session (attack 31)."""
    w = Writes.signed()
    x1, x2, y, bobs, differ = w.x1, w.x2, w.y, w.bobs, w.differ
    violation = ["ProtocolViolation"]
    hostile = ["attack:31"]
    unexpected, bad = "SESSION_UNEXPECTED_MESSAGE", "SESSION_BAD_MESSAGE"
    cases: list[tuple[str, str, list[str], Json, str, list[str]]] = [
        # A responder over `base`.
        (
            "responder-unsolicited-results",
            "RESULTS before any HELLO.",
            violation,
            script("responder", w.base, [message("RESULTS", ["accepted"], [""], [], [])]),
            unexpected,
            hostile,
        ),
        (
            "responder-hello-twice",
            "A second HELLO.",
            violation,
            script("responder", w.base, [differ, differ]),
            unexpected,
            hostile,
        ),
        (
            "responder-wrong-protocol",
            "HELLO with protocol 1 (the per-key walk).",
            violation,
            script("responder", w.base, [message("HELLO", 1, b"peer", bytes(32), bytes(32), 0)]),
            "SESSION_PROTOCOL_VERSION",
            hostile,
        ),
        (
            "responder-garbage-frame",
            "A frame that is not msgpack.",
            violation,
            script("responder", w.base, [b"\xc1\x00"]),
            bad,
            hostile,
        ),
        (
            "responder-unknown-message",
            "A frame naming no message.",
            violation,
            script("responder", w.base, [message("HI")]),
            bad,
            hostile,
        ),
        (
            "responder-bad-recon",
            "A RECON that is not Negentropy V1.",
            violation,
            script("responder", w.base, [differ, message("RECON", b"\x60")]),
            bad,
            [*hostile, "sync:K2"],
        ),
        (
            "responder-want-before-recon",
            "A WANT before any pass began.",
            violation,
            script("responder", w.base, [differ, message("WANT", [x1.entry_hash])]),
            unexpected,
            hostile,
        ),
        (
            "responder-duplicate-key",
            "Two records of /a/x in one pass.",
            violation,
            script(
                "responder",
                w.base,
                [differ, opening([x2]), message("RECORDS", [x2.encode(), x2.encode()])],
            ),
            "SESSION_DUPLICATE_KEY",
            hostile,
        ),
        (
            "responder-atomic-before-abort",
            "/a/x is applied, then a violation: /a/x stays.",
            violation,
            script(
                "responder",
                w.base,
                [differ, opening([x2]), message("RECORDS", [x2.encode()]), differ],
            ),
            unexpected,
            hostile,
        ),
        (
            "responder-too-many-passes",
            "A fourth pass.",
            [*violation, "MaxLoops"],
            script("responder", w.base, [hello()] + [opening([]), tree([])] * 3 + [opening([])]),
            "SESSION_TOO_MANY_PASSES",
            [*hostile, "sync:K6"],
        ),
        (
            "responder-too-many-rounds",
            "A 33rd RECON in one pass.",
            violation,
            script("responder", w.base, [differ] + [opening([x2])] * 33),
            "SESSION_TOO_MANY_ROUNDS",
            [*hostile, "sync:K6"],
        ),
        (
            "responder-results-miscounted",
            "RESULTS with two outcomes for a RECORDS of one record.",
            violation,
            script(
                "responder",
                w.base,
                [
                    differ,
                    opening([x2]),
                    message("WANT", [x1.entry_hash]),
                    message("RESULTS", ["stale", "stale"], ["STALE", "STALE"], [], []),
                ],
            ),
            bad,
            [*hostile, "sync:K7"],
        ),
        (
            "responder-serves-want",
            "A WANT for /a/x and an unknown id: RECORDS holds /a/x alone; a clean pass and BYE.",
            ["Honest"],
            script(
                "responder",
                w.base,
                [
                    differ,
                    opening([x2]),
                    message("WANT", [x1.entry_hash, bytes(32)]),
                    message("RESULTS", ["stale"], ["STALE"], [], []),
                    tree([x2]),
                    message("BYE"),
                ],
            ),
            "valid",
            ["sync:K7", "sync:K8"],
        ),
        (
            "responder-timeout",
            "The peer goes silent after HELLO.",
            violation,
            script("responder", w.base, [differ], timeout=True),
            "SESSION_TIMEOUT",
            hostile,
        ),
        (
            "responder-frame-after-bye",
            "A frame after BYE.",
            violation,
            script("responder", w.base, [hello([x1]), message("BYE"), message("BYE")]),
            "SESSION_CLOSED",
            hostile,
        ),
        (
            "responder-revoked-record-gets-revocation",
            "The peer skips the revocation exchange and sends bob's revoked record: RESULTS "
            "rejected, REVOKED, the revocation and B's own record attached; no abort.",
            ["PerRecordRejection", "Revocations"],
            script(
                "responder",
                snap([x1], [w.revocation]),
                [
                    hello([bobs], [w.revocation]),
                    opening([bobs]),
                    message("RECORDS", [bobs.encode()]),
                    tree([bobs]),
                    message("BYE"),
                ],
            ),
            "valid",
            ["attack:20", "sync:K7"],
        ),
        # An initiator.
        (
            "initiator-unrequested-record",
            "The responder answers a WANT for /a/x with /a/y's record; nothing is applied.",
            violation,
            script(
                "initiator",
                snap([x1]),
                [hello([x2]), recon_reply([x2], [x1]), message("RECORDS", [y.encode()])],
            ),
            "SESSION_NOT_REQUESTED",
            [*hostile, "sync:K8"],
        ),
        (
            "initiator-unexpected-records",
            "RECORDS while no WANT is open.",
            violation,
            script("initiator", snap([x1]), [hello([x2]), message("RECORDS", [x2.encode()])]),
            unexpected,
            hostile,
        ),
        (
            "initiator-full-pass",
            "A clean pass seen from the initiator: RECON, WANT /a/y, RESULTS, equal trees, BYE.",
            ["Honest"],
            script(
                "initiator",
                snap([x1]),
                [
                    hello([x1, y]),
                    recon_reply([x1, y], [x1]),
                    message("RECORDS", [y.encode()]),
                    tree([x1, y]),
                ],
            ),
            "valid",
            ["sync:K6", "sync:K7"],
        ),
        (
            "initiator-stale-fetch-returns-own",
            "A fetches B's older /a/x: STALE, A's own record goes back in RESULTS and is not "
            "sent again as a record B lacks.",
            ["Honest"],
            script(
                "initiator",
                snap([x2]),
                [
                    hello([x1]),
                    recon_reply([x1], [x2]),
                    message("RECORDS", [x1.encode()]),
                    tree([x2]),
                ],
            ),
            "valid",
            ["sync:K7"],
        ),
    ]
    for name, comment, flags, session, expect, rules in cases:
        g.case(name, comment, flags=flags, input=session, expect=expect, rules=[*RULES, *rules])


def push_and_fetch(g: BoundGroup) -> None:
    """One PUSH or FETCH frame answered outside a session."""
    w = Writes.signed()
    cases: list[tuple[str, str, list[str], Json, bytes, str]] = [
        (
            "push-new",
            "A pushed record new here: accepted.",
            ["Honest"],
            w.base,
            message("PUSH", [w.x2.encode()]),
            "valid",
        ),
        (
            "push-stale",
            "A pushed older record: STALE and the local one goes back.",
            ["Honest"],
            snap([w.x2]),
            message("PUSH", [w.x1.encode()]),
            "valid",
        ),
        (
            "push-revoked",
            "bob's revoked record: REJECTED, REVOKED, the revocation attached.",
            ["PerRecordRejection", "Revocations"],
            snap([w.x1], [w.revocation]),
            message("PUSH", [w.bobs.encode()]),
            "valid",
        ),
        (
            "push-garbage-record",
            "Bytes that are no record: REJECTED, nothing stored.",
            ["PerRecordRejection"],
            w.base,
            message("PUSH", [b"\x90"]),
            "valid",
        ),
        (
            "fetch-present-and-absent",
            "FETCH /a/x and /a/none: RECORDS holds /a/x alone.",
            ["Honest"],
            w.base,
            message("FETCH", ["/a/x", "/a/none"]),
            "valid",
        ),
        (
            "push-wrong-message",
            "A HELLO where PUSH or FETCH belongs.",
            ["ProtocolViolation"],
            w.base,
            w.differ,
            "SESSION_UNEXPECTED_MESSAGE",
        ),
    ]
    for name, comment, flags, store, frame, expect in cases:
        g.case(
            name,
            comment,
            flags=flags,
            input=pushing(store, frame),
            expect=expect,
            rules=PUSH_RULES,
        )


def build(strict: bool = True) -> SuiteBuilder:
    suite = new_suite("sessions", " ".join(HEADER), FLAGS, strict=strict)
    transcripts(suite.group("kv_transcript", **PARAMS))
    scripted(suite.group("kv_scripted", **PARAMS))
    push_and_fetch(suite.group("kv_push", **PARAMS))
    return suite
