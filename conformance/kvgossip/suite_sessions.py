"""Sync-session vectors, protocol 2, message by message, both roles, and push and fetch (notes
3.5; table rows 22-26; section 5 cases 20, 26, 31; decisions K5-K10)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from swarmconf.conformance.catalogue import Catalogue
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


HEADER = [
    "transcript: load both snapshots, run the initiator and responder against each other",
    "at `now` until neither sends; every frame in order and both end states.",
    "scripted: load one role's snapshot, call start(now), then feed the peer's frames one",
    "by one (then a timeout if set); the frames sent after each, and how it ended.",
    "push: load the snapshot and answer one PUSH or FETCH frame at `now`; the reply and",
    "the end state.",
]
RULES = ["notes:3.5", "row:24", "row:25"]
PARAMS = {"rootKey": ROOT.pk.hex(), "skewMs": DEFAULT_SKEW_MS, "maxLoops": DEFAULT_MAX_LOOPS}


def rec(key: str, ts: int, value: bytes | None, seed: bytes = ALICE.seed) -> Record:
    return make_record(seed, key, ts, value, [] if seed == ROOT.seed else [G_ALICE])


def recon_reply(peer: Sequence[Record], mine: Sequence[Record]) -> bytes:
    """The RECON a responder holding `peer` sends to the first RECON of one holding `mine`."""
    first = recon.initiate(MemoryStore(mine).sync_items())
    return message("RECON", recon.step(MemoryStore(peer).sync_items(), first, False).reply)


def opening(records: Sequence[Record]) -> bytes:
    """The first RECON an initiator holding `records` sends."""
    return message("RECON", recon.initiate(MemoryStore(records).sync_items()))


def tree(records: Sequence[Record]) -> bytes:
    return message("TREE", MemoryStore(records).tree_hash(), len(records))


class Sessions:
    """The suite and its three groups: whole transcripts, one scripted role, push and fetch."""

    def __init__(self, strict: bool) -> None:
        self.suite = Suite("sessions", HEADER, FLAGS)
        self.strict = strict
        # Made when the suite is built (under a mutant, if one is active): alice's /a/x in two
        # versions, /a/y and the root's /r; bob writes /a/x through a grant the root revokes.
        self.x1, self.x2 = rec("/a/x", T0 + 1, b"1"), rec("/a/x", T0 + 2, b"2")
        self.y = rec("/a/y", T0 + 3, b"y")
        self.r = rec("/r", T0 + 4, b"root", ROOT.seed)
        self.g_bob = issue_grant(ROOT.seed, BOB.pk, "/a/**", subgrant=False, issued_at=T0)
        self.bobs = make_record(BOB.seed, "/a/x", T0 + 7, b"bob", [self.g_bob])
        self.revocation = revoke_grant(ROOT.seed, self.g_bob, T0 + 20, ROOT.pk)
        self.differ = hello([self.x2])
        """The HELLO of a peer whose store differs from `base`."""
        self.base = snap([self.x1])

    def transcript(
        self,
        name: str,
        comment: str,
        flags: list[str],
        a: dict[str, Any],
        b: dict[str, Any],
        extra: tuple[str, ...] = (),
    ) -> None:
        """Two honest sessions, A initiating over snapshot `a`, B responding over `b`."""
        add(
            self.suite,
            self.suite.group("transcript", **PARAMS),
            name,
            comment,
            flags=flags,
            rules=RULES + list(extra),
            input={"initiator": a, "responder": b, "now": NOW},
            want="valid",
            strict=self.strict,
        )

    def scripted(
        self,
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
        """One session in `role` over `store`, fed the peer's `frames`."""
        add(
            self.suite,
            self.suite.group("scripted", **PARAMS),
            name,
            comment,
            flags=flags,
            rules=RULES + list(extra),
            input={
                "role": role,
                "store": store,
                "now": NOW,
                "frames": [f.hex() for f in frames],
                "timeout": timeout,
            },
            want=want,
            reason=reason,
            strict=self.strict,
        )

    def violation(
        self,
        name: str,
        comment: str,
        frames: list[bytes],
        reason: str,
        *,
        role: str = "responder",
        store: dict[str, Any] | None = None,
        extra: tuple[str, ...] = ("attack:31",),
        flags: tuple[str, ...] = (),
        timeout: bool = False,
    ) -> None:
        """A peer breaking the protocol: the session aborts with `reason` (over `base` unless
        `store` is given)."""
        self.scripted(
            name,
            comment,
            ["ProtocolViolation", *flags],
            role,
            self.base if store is None else store,
            frames,
            "invalid",
            reason,
            timeout=timeout,
            extra=extra,
        )

    def push(
        self,
        name: str,
        comment: str,
        flags: list[str],
        store: dict[str, Any],
        frame: bytes,
        want: str = "valid",
        reason: str | None = None,
    ) -> None:
        """One PUSH or FETCH `frame` answered outside a session over `store`."""
        add(
            self.suite,
            self.suite.group("push", **PARAMS),
            name,
            comment,
            flags=flags,
            rules=[*RULES, "sync:K9", "sync:K10"],
            input={"store": store, "now": NOW, "frame": frame.hex()},
            want=want,
            reason=reason,
            strict=self.strict,
        )


case = Catalogue[Sessions]()


# Transcripts: two honest sessions talk to the end.


@case
def both_empty(s: Sessions) -> None:
    s.transcript("both-empty", "Equal empty stores: HELLO, HELLO, BYE.", ["Honest"], snap(), snap())


@case
def equal_stores(s: Sessions) -> None:
    s.transcript(
        "equal-stores",
        "Equal stores: HELLO, HELLO, BYE.",
        ["Honest"],
        snap([s.x1, s.y]),
        snap([s.y, s.x1]),
    )


@case
def one_side_newer(s: Sessions) -> None:
    s.transcript(
        "initiator-newer",
        "A's /a/x is newer: A sends it in RECORDS after reconciling; B accepts.",
        ["Honest"],
        snap([s.x2]),
        snap([s.x1]),
    )
    s.transcript(
        "responder-newer",
        "B's /a/x is newer: A asks for it with WANT and accepts.",
        ["Honest"],
        snap([s.x1]),
        snap([s.x2]),
    )


@case
def responder_only_keys(s: Sessions) -> None:
    s.transcript(
        "responder-only-keys",
        "B holds keys A lacks: one WANT, one RECORDS, one RESULTS.",
        ["Honest"],
        snap([s.x1]),
        snap([s.x1, s.y, s.r]),
    )


@case
def mixed(s: Sessions) -> None:
    s.transcript(
        "mixed",
        "Keys flow both ways in one pass.",
        ["Honest"],
        snap([s.x2, s.r]),
        snap([s.x1, s.y]),
    )


@case
def tombstone_propagates(s: Sessions) -> None:
    tomb = rec("/a/y", T0 + 9, None)
    s.transcript(
        "tombstone-propagates",
        "A tombstone replaces the value.",
        ["Honest"],
        snap([tomb]),
        snap([s.y]),
        ("attack:28",),
    )


@case
def reset_same_value_syncs(s: Sessions) -> None:
    reset = rec("/a/x", T0 + 2, b"1")
    s.transcript(
        "reset-same-value-syncs",
        "B re-SET /a/x to the same bytes later: the tree hashes differ (Go's are equal, so Go "
        "says BYE and the re-SET never spreads).",
        ["Honest"],
        snap([s.x1]),
        snap([reset]),
        ("row:19", "row:20", "attack:22", "attack:30"),
    )


@case
def equal_ts_converge(s: Sessions) -> None:
    p = rec("/a/t", T0 + 5, b"p")
    q = rec("/a/t", T0 + 5, b"q")
    s.transcript(
        "equal-ts-converge",
        "Equal ts, different records: both keep the larger hash.",
        ["TieBreak"],
        snap([p]),
        snap([q]),
        ("row:21", "attack:26"),
    )


@case
def revocations_first(s: Sessions) -> None:
    s.transcript(
        "revocations-first",
        "B knows a revocation A lacks: REVS, REVS, REVDATA, "
        "REVDATA; A purges bob's record; A then takes B's older /a/x.",
        ["Revocations"],
        snap([s.bobs]),
        snap([s.x1], [s.revocation]),
        ("row:14", "row:26", "attack:21"),
    )


@case
def deferred_record_max_loops(s: Sessions) -> None:
    future = rec("/a/f", NOW + DEFAULT_SKEW_MS + 1, b"soon")
    s.transcript(
        "deferred-record-max-loops",
        "A's record is beyond B's clock + skew: deferred in every pass; three passes, then BYE.",
        ["PerRecordRejection", "MaxLoops"],
        snap([future]),
        snap(),
        ("row:22", "attack:25"),
    )


@case
def unauthorised_record_rejected(s: Sessions) -> None:
    forged = make_record(BOB.seed, "/a/z", T0 + 8, b"evil", [G_ALICE])
    s.transcript(
        "unauthorised-record-rejected",
        "A holds a record bob signed with alice's chain "
        "(a buggy store): B rejects it and accepts the next record of the batch.",
        ["PerRecordRejection", "MaxLoops"],
        snap([forged, s.x1]),
        snap(),
        ("attack:9",),
    )


# Scripted: one role fed the peer's frames; protocol violations abort the session.


@case
def responder_message_out_of_order(s: Sessions) -> None:
    s.violation(
        "responder-unsolicited-results",
        "RESULTS before any HELLO.",
        [message("RESULTS", ["accepted"], [""], [], [])],
        "SESSION_UNEXPECTED_MESSAGE",
    )
    s.violation(
        "responder-hello-twice",
        "A second HELLO.",
        [s.differ, s.differ],
        "SESSION_UNEXPECTED_MESSAGE",
    )


@case
def responder_wrong_protocol(s: Sessions) -> None:
    s.violation(
        "responder-wrong-protocol",
        "HELLO with protocol 1 (the per-key walk).",
        [message("HELLO", 1, b"peer", bytes(32), bytes(32), 0)],
        "SESSION_PROTOCOL_VERSION",
    )


@case
def responder_malformed_frames(s: Sessions) -> None:
    s.violation(
        "responder-garbage-frame",
        "A frame that is not msgpack.",
        [b"\xc1\x00"],
        "SESSION_BAD_MESSAGE",
    )
    s.violation(
        "responder-unknown-message",
        "A frame naming no message.",
        [message("HI")],
        "SESSION_BAD_MESSAGE",
    )
    s.violation(
        "responder-bad-recon",
        "A RECON that is not Negentropy V1.",
        [s.differ, message("RECON", b"\x60")],
        "SESSION_BAD_MESSAGE",
        extra=("attack:31", "sync:K2"),
    )


@case
def responder_want_before_recon(s: Sessions) -> None:
    s.violation(
        "responder-want-before-recon",
        "A WANT before any pass began.",
        [s.differ, message("WANT", [s.x1.entry_hash])],
        "SESSION_UNEXPECTED_MESSAGE",
    )


@case
def responder_duplicate_key(s: Sessions) -> None:
    s.violation(
        "responder-duplicate-key",
        "Two records of /a/x in one pass.",
        [s.differ, opening([s.x2]), message("RECORDS", [s.x2.encode(), s.x2.encode()])],
        "SESSION_DUPLICATE_KEY",
    )


@case
def responder_atomic_before_abort(s: Sessions) -> None:
    s.violation(
        "responder-atomic-before-abort",
        "/a/x is applied, then a violation: /a/x stays.",
        [s.differ, opening([s.x2]), message("RECORDS", [s.x2.encode()]), s.differ],
        "SESSION_UNEXPECTED_MESSAGE",
    )


@case
def responder_limits(s: Sessions) -> None:
    s.violation(
        "responder-too-many-passes",
        "A fourth pass.",
        [hello()] + [opening([]), tree([])] * 3 + [opening([])],
        "SESSION_TOO_MANY_PASSES",
        extra=("attack:31", "sync:K6"),
        flags=("MaxLoops",),
    )
    s.violation(
        "responder-too-many-rounds",
        "A 33rd RECON in one pass.",
        [s.differ] + [opening([s.x2])] * 33,
        "SESSION_TOO_MANY_ROUNDS",
        extra=("attack:31", "sync:K6"),
    )


@case
def responder_results_miscounted(s: Sessions) -> None:
    s.violation(
        "responder-results-miscounted",
        "RESULTS with two outcomes for a RECORDS of one record.",
        [
            s.differ,
            opening([s.x2]),
            message("WANT", [s.x1.entry_hash]),
            message("RESULTS", ["stale", "stale"], ["STALE", "STALE"], [], []),
        ],
        "SESSION_BAD_MESSAGE",
        extra=("attack:31", "sync:K7"),
    )


@case
def responder_serves_want(s: Sessions) -> None:
    s.scripted(
        "responder-serves-want",
        "A WANT for /a/x and an unknown id: RECORDS holds /a/x alone; a clean pass and BYE.",
        ["Honest"],
        "responder",
        s.base,
        [
            s.differ,
            opening([s.x2]),
            message("WANT", [s.x1.entry_hash, bytes(32)]),
            message("RESULTS", ["stale"], ["STALE"], [], []),
            tree([s.x2]),
            message("BYE"),
        ],
        "valid",
        extra=("sync:K7", "sync:K8"),
    )


@case
def responder_timeout_and_closed(s: Sessions) -> None:
    s.violation(
        "responder-timeout",
        "The peer goes silent after HELLO.",
        [s.differ],
        "SESSION_TIMEOUT",
        timeout=True,
    )
    s.violation(
        "responder-frame-after-bye",
        "A frame after BYE.",
        [hello([s.x1]), message("BYE"), message("BYE")],
        "SESSION_CLOSED",
    )


@case
def responder_revoked_record_gets_revocation(s: Sessions) -> None:
    s.scripted(
        "responder-revoked-record-gets-revocation",
        "The peer skips the revocation exchange and sends bob's revoked record: RESULTS "
        "rejected, REVOKED, the revocation and B's own record attached; no abort.",
        ["PerRecordRejection", "Revocations"],
        "responder",
        snap([s.x1], [s.revocation]),
        [
            hello([s.bobs], [s.revocation]),
            opening([s.bobs]),
            message("RECORDS", [s.bobs.encode()]),
            tree([s.bobs]),
            message("BYE"),
        ],
        "valid",
        extra=("attack:20", "sync:K7"),
    )


@case
def initiator_records_not_asked_for(s: Sessions) -> None:
    s.violation(
        "initiator-unrequested-record",
        "The responder answers a WANT for /a/x with /a/y's record; nothing is applied.",
        [hello([s.x2]), recon_reply([s.x2], [s.x1]), message("RECORDS", [s.y.encode()])],
        "SESSION_NOT_REQUESTED",
        role="initiator",
        store=snap([s.x1]),
        extra=("attack:31", "sync:K8"),
    )
    s.violation(
        "initiator-unexpected-records",
        "RECORDS while no WANT is open.",
        [hello([s.x2]), message("RECORDS", [s.x2.encode()])],
        "SESSION_UNEXPECTED_MESSAGE",
        role="initiator",
        store=snap([s.x1]),
    )


@case
def initiator_full_pass(s: Sessions) -> None:
    s.scripted(
        "initiator-full-pass",
        "A clean pass seen from the initiator: RECON, WANT /a/y, RESULTS, equal trees, BYE.",
        ["Honest"],
        "initiator",
        snap([s.x1]),
        [
            hello([s.x1, s.y]),
            recon_reply([s.x1, s.y], [s.x1]),
            message("RECORDS", [s.y.encode()]),
            tree([s.x1, s.y]),
        ],
        "valid",
        extra=("sync:K6", "sync:K7"),
    )


@case
def initiator_stale_fetch_returns_own(s: Sessions) -> None:
    s.scripted(
        "initiator-stale-fetch-returns-own",
        "A fetches B's older /a/x: STALE, A's own record goes back in RESULTS and is not sent "
        "again as a record B lacks.",
        ["Honest"],
        "initiator",
        snap([s.x2]),
        [
            hello([s.x1]),
            recon_reply([s.x1], [s.x2]),
            message("RECORDS", [s.x1.encode()]),
            tree([s.x2]),
        ],
        "valid",
        extra=("sync:K7",),
    )


# Push and fetch: one frame answered outside a session.


@case
def push_records(s: Sessions) -> None:
    s.push(
        "push-new",
        "A pushed record new here: accepted.",
        ["Honest"],
        s.base,
        message("PUSH", [s.x2.encode()]),
    )
    s.push(
        "push-stale",
        "A pushed older record: STALE and the local one goes back.",
        ["Honest"],
        snap([s.x2]),
        message("PUSH", [s.x1.encode()]),
    )
    s.push(
        "push-revoked",
        "bob's revoked record: REJECTED, REVOKED, the revocation attached.",
        ["PerRecordRejection", "Revocations"],
        snap([s.x1], [s.revocation]),
        message("PUSH", [s.bobs.encode()]),
    )
    s.push(
        "push-garbage-record",
        "Bytes that are no record: REJECTED, nothing stored.",
        ["PerRecordRejection"],
        s.base,
        message("PUSH", [b"\x90"]),
    )


@case
def fetch_present_and_absent(s: Sessions) -> None:
    s.push(
        "fetch-present-and-absent",
        "FETCH /a/x and /a/none: RECORDS holds /a/x alone.",
        ["Honest"],
        s.base,
        message("FETCH", ["/a/x", "/a/none"]),
    )


@case
def push_wrong_message(s: Sessions) -> None:
    s.push(
        "push-wrong-message",
        "A HELLO where PUSH or FETCH belongs.",
        ["ProtocolViolation"],
        s.base,
        s.differ,
        "invalid",
        "SESSION_UNEXPECTED_MESSAGE",
    )


def build(strict: bool = True) -> Suite:
    return case.fill(Sessions(strict)).suite
