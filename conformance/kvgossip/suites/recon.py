"""Range-based reconciliation vectors: whole exchanges and single steps (kv-sync 3.3c;
decisions K2-K4)."""

from __future__ import annotations

from swarmconf.conformance.builder import BoundGroup, SuiteBuilder
from swarmconf.conformance.vectors import Flag, Json
from swarmconf.spec.kvgossip import crypto, recon

from ..vocabulary import new_suite

FLAGS = {
    "Basic": Flag("BASIC", "Two item sets reconciled to the end.", "Every message as given."),
    "Split": Flag(
        "FUNCTIONALITY",
        "Sets large enough that differing ranges split into 16 fingerprinted buckets.",
        "The differences are found in a few rounds.",
    ),
    "EqualTimestamps": Flag(
        "EDGE_CASE",
        "Many items share a timestamp, so bounds need id prefixes.",
        "Bounds carry the shortest separating prefix.",
    ),
    "MessageBudget": Flag(
        "EDGE_CASE",
        "A reply would pass the message budget.",
        "It answers what fits and fingerprints the rest; more rounds, same result.",
    ),
    "Malformed": Flag(
        "MODIFIED_PARAMETER", "A message that is not Negentropy V1.", "SESSION_BAD_MESSAGE."
    ),
}
T = 1_700_000_000_000


def items(numbers: range | list[int], ts_step: int = 1) -> list[recon.Item]:
    """Items with ids SHA-256("kvg/test-id/<n>"), stamped `T + n // ts_step`."""
    return [(T + n // ts_step, crypto.sha256(b"kvg/test-id/%d" % n)) for n in numbers]


def as_json(its: list[recon.Item]) -> list[dict[str, object]]:
    """Items as the vectors write them."""
    return [{"ts": ts, "id": i.hex()} for ts, i in its]


HEADER = [
    "reconcile: sort both item lists by (ts, id); the initiator sends initiate(items),",
    "then the responder and initiator answer with step(items, message, initiator, limit)",
    "in turn until the initiator's step has no reply. messages: every message in order;",
    "have/need: the ids the initiator's steps reported, in order.",
    "step: one call of step on the given items; reply is null when the initiator is done.",
]
RULES = ["sync:K2", "sync:K3"]
SAMPLE = sorted(items(range(3)))
"""The items one step runs over."""
BIG = list(range(600))
MALFORMED = [
    ("empty-message", "No version byte.", b""),
    ("wrong-version", "Version 0x60.", b"\x60"),
    ("unknown-mode", "Mode 5.", b"\x61\x00\x00\x05"),
    ("truncated-fingerprint", "A fingerprint of 2 bytes.", b"\x61\x00\x00\x01\x00\x00"),
    ("prefix-too-long", "A bound prefix of 33 bytes.", b"\x61\x00\x21" + b"\x00" * 33),
    ("bounds-not-increasing", "Two ranges with the same bound.", b"\x61\x02\x00\x00\x01\x00\x00"),
    (
        "id-list-overruns",
        "An id list claiming 3 ids, holding one.",
        b"\x61\x00\x00\x02\x03" + bytes(32),
    ),
    ("varint-too-long", "An 11-byte varint.", b"\x61" + b"\xff" * 10 + b"\x00"),
]
"""Messages that are not Negentropy V1: name, comment, bytes."""


def reconciling(
    a: list[recon.Item], b: list[recon.Item], limit: int = recon.MAX_MESSAGE_BYTES
) -> Json:
    """The input: the initiator holding `a` reconciles with the responder holding `b`, their
    messages within `limit` bytes."""
    return {"initiator": as_json(a), "responder": as_json(b), "limit": limit}


def stepping(message: bytes, initiator: bool) -> Json:
    """The input: one step over `SAMPLE` answering `message`."""
    return {"items": as_json(SAMPLE), "message": message.hex(), "initiator": initiator}


def reconciliations(g: BoundGroup) -> None:
    """Whole exchanges, to the end."""
    for name, comment, flags, a, b in [
        ("both-empty", "Two empty sets: one round, nothing found.", ["Basic"], [], []),
        ("equal-small", "Equal sets of 10.", ["Basic"], items(range(10)), items(range(10))),
        (
            "small-difference",
            "Under 32 items: id lists straight away.",
            ["Basic"],
            items(range(0, 20)),
            items(range(5, 25)),
        ),
        (
            "initiator-empty",
            "A fresh node: the responder lists every id.",
            ["Basic"],
            [],
            items(range(40)),
        ),
        ("responder-empty", "The initiator holds everything.", ["Basic"], items(range(40)), []),
        (
            "one-difference-in-600",
            "One item replaced in the middle of 600: buckets narrow it down.",
            ["Split"],
            items(BIG),
            items([n for n in BIG if n != 300] + [10_000]),
        ),
        (
            "scattered-differences",
            "Items missing on each side at several places.",
            ["Split"],
            items([n for n in BIG if n % 97 != 5]),
            items([n for n in BIG if n % 89 != 7]),
        ),
        (
            "shared-timestamps",
            "200 items on 4 timestamps: bounds carry id prefixes.",
            ["EqualTimestamps", "Split"],
            items(range(200), ts_step=50),
            items([n for n in range(200) if n != 123], ts_step=50),
        ),
    ]:
        g.case(name, comment, flags=flags, input=reconciling(a, b), expect="valid", rules=RULES)
    g.case(
        "budget-forces-rounds",
        "A fresh node with a 1,024-byte budget: the id list comes over several rounds.",
        flags=["MessageBudget"],
        input=reconciling([], items(range(100)), limit=1024),
        expect="valid",
        rules=[*RULES, "sync:K4"],
    )


def single_steps(g: BoundGroup) -> None:
    """One step over `SAMPLE`."""
    done = recon.step(SAMPLE, recon.initiate(SAMPLE), False).reply or b""
    for name, comment, flag, message, initiator, expect in [
        (
            "responder-answers-id-list",
            "An empty id list over everything: the responder lists its ids.",
            "Basic",
            recon.initiate([]),
            False,
            "valid",
        ),
        (
            "initiator-done",
            "The responder's answer lists exactly the initiator's ids: done, nothing found.",
            "Basic",
            done,
            True,
            "valid",
        ),
        *(
            (name, comment, "Malformed", message, False, "SESSION_BAD_MESSAGE")
            for name, comment, message in MALFORMED
        ),
    ]:
        g.case(
            name,
            comment,
            flags=[flag],
            input=stepping(message, initiator),
            expect=expect,
            rules=RULES,
        )


def build(strict: bool = True) -> SuiteBuilder:
    suite = new_suite("recon", " ".join(HEADER), FLAGS, strict=strict)
    reconciliations(suite.group("kv_reconcile"))
    single_steps(suite.group("kv_step"))
    return suite
