"""Range-based reconciliation vectors: whole exchanges and single steps (kv-sync 3.3c;
decisions K2-K4)."""

from __future__ import annotations

from swarmconf.conformance.catalogue import Catalogue
from swarmconf.spec.kvgossip import crypto, recon

from .base import Flag, Suite, add

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


class Reconciling:
    """The suite and its groups: whole reconciliations, and single steps over `SAMPLE`."""

    def __init__(self, strict: bool) -> None:
        self.suite = Suite("recon", HEADER, FLAGS)
        self.strict = strict

    def reconcile(
        self,
        name: str,
        comment: str,
        flags: list[str],
        a: list[recon.Item],
        b: list[recon.Item],
        limit: int = recon.MAX_MESSAGE_BYTES,
    ) -> None:
        """The initiator holding `a` reconciles with the responder holding `b`."""
        add(
            self.suite,
            self.suite.group("reconcile"),
            name,
            comment,
            flags=flags,
            rules=RULES + (["sync:K4"] if limit != recon.MAX_MESSAGE_BYTES else []),
            input={"initiator": as_json(a), "responder": as_json(b), "limit": limit},
            want="valid",
            strict=self.strict,
        )

    def step(
        self,
        name: str,
        comment: str,
        flags: list[str],
        message: bytes,
        initiator: bool,
        want: str,
        reason: str | None = None,
    ) -> None:
        """One step over `SAMPLE` answering `message`."""
        add(
            self.suite,
            self.suite.group("step"),
            name,
            comment,
            flags=flags,
            rules=RULES,
            input={"items": as_json(SAMPLE), "message": message.hex(), "initiator": initiator},
            want=want,
            reason=reason,
            strict=self.strict,
        )


case = Catalogue[Reconciling]()


@case
def small_sets(r: Reconciling) -> None:
    r.reconcile("both-empty", "Two empty sets: one round, nothing found.", ["Basic"], [], [])
    r.reconcile("equal-small", "Equal sets of 10.", ["Basic"], items(range(10)), items(range(10)))
    r.reconcile(
        "small-difference",
        "Under 32 items: id lists straight away.",
        ["Basic"],
        items(range(0, 20)),
        items(range(5, 25)),
    )


@case
def one_side_empty(r: Reconciling) -> None:
    r.reconcile(
        "initiator-empty",
        "A fresh node: the responder lists every id.",
        ["Basic"],
        [],
        items(range(40)),
    )
    r.reconcile(
        "responder-empty", "The initiator holds everything.", ["Basic"], items(range(40)), []
    )


@case
def large_sets_split(r: Reconciling) -> None:
    r.reconcile(
        "one-difference-in-600",
        "One item replaced in the middle of 600: buckets narrow it down.",
        ["Split"],
        items(BIG),
        items([n for n in BIG if n != 300] + [10_000]),
    )
    r.reconcile(
        "scattered-differences",
        "Items missing on each side at several places.",
        ["Split"],
        items([n for n in BIG if n % 97 != 5]),
        items([n for n in BIG if n % 89 != 7]),
    )


@case
def shared_timestamps(r: Reconciling) -> None:
    r.reconcile(
        "shared-timestamps",
        "200 items on 4 timestamps: bounds carry id prefixes.",
        ["EqualTimestamps", "Split"],
        items(range(200), ts_step=50),
        items([n for n in range(200) if n != 123], ts_step=50),
    )


@case
def budget_forces_rounds(r: Reconciling) -> None:
    r.reconcile(
        "budget-forces-rounds",
        "A fresh node with a 1,024-byte budget: the id list comes over several rounds.",
        ["MessageBudget"],
        [],
        items(range(100)),
        limit=1024,
    )


@case
def single_steps(r: Reconciling) -> None:
    r.step(
        "responder-answers-id-list",
        "An empty id list over everything: the responder lists its ids.",
        ["Basic"],
        recon.initiate([]),
        False,
        "valid",
    )
    r.step(
        "initiator-done",
        "The responder's answer lists exactly the initiator's ids: done, nothing found.",
        ["Basic"],
        recon.step(SAMPLE, recon.initiate(SAMPLE), False).reply or b"",
        True,
        "valid",
    )


@case
def malformed_messages(r: Reconciling) -> None:
    for name, comment, message in [
        ("empty-message", "No version byte.", b""),
        ("wrong-version", "Version 0x60.", b"\x60"),
        ("unknown-mode", "Mode 5.", b"\x61\x00\x00\x05"),
        ("truncated-fingerprint", "A fingerprint of 2 bytes.", b"\x61\x00\x00\x01\x00\x00"),
        ("prefix-too-long", "A bound prefix of 33 bytes.", b"\x61\x00\x21" + b"\x00" * 33),
        (
            "bounds-not-increasing",
            "Two ranges with the same bound.",
            b"\x61\x02\x00\x00\x01\x00\x00",
        ),
        (
            "id-list-overruns",
            "An id list claiming 3 ids, holding one.",
            b"\x61\x00\x00\x02\x03" + bytes(32),
        ),
        ("varint-too-long", "An 11-byte varint.", b"\x61" + b"\xff" * 10 + b"\x00"),
    ]:
        r.step(name, comment, ["Malformed"], message, False, "invalid", "SESSION_BAD_MESSAGE")


def build(strict: bool = True) -> Suite:
    return case.fill(Reconciling(strict)).suite
