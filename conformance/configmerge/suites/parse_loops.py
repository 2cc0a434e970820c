"""Where the deployed client's parser loops forever (X3), and where, one step away, it does not.

The deployed parse reads a message one top-level key at a time and checks each value's bt
structure as it takes it; in a diff (`=`, or a lagged entry inside the lag window) a value that
is an integer is never taken, and the loop asks for the same key forever. So it loops when it
meets such an integer before anything it refuses, whatever follows; an input refused before it,
or whose diff is not well-formed bt as a whole, is answered. swarmconf refuses every case that
loops (D10, D12, D7), most of them for what the deployed client never reads.

Every case parses one message under lag 5; two merge a looping message with a valid one.
"""

from __future__ import annotations

from swarmconf.conformance.builder import VALID, BoundGroup, SuiteBuilder
from swarmconf.conformance.catalogue import Catalogue
from swarmconf.conformance.configmerge.values import HASH_A, HASH_B, raw_message
from swarmconf.conformance.configmerge.vocabulary import new_suite

S = 10
"""The seqno of the messages below; under lag 5 lagged entries 6 to 9 are read, 5 and below
are dropped unread."""
HEAD = b"d1:#i10e1:&de"
"""A message's start: seqno S and empty data."""
DIFF_INTEGER = b"1:=d1:ai1ee"
"""A diff whose only value is an integer."""


def lagged(seqno: int, diff: bytes, hash_: bytes = HASH_A) -> bytes:
    """A `<` of one entry, its diff given as bytes."""
    return b"1:<ll" + b"i%de32:" % seqno + hash_ + diff + b"ee"


def nested(depth: int, inner: bytes) -> bytes:
    """A dict diff `depth` levels deep around `inner`, each level keyed `a`."""
    return b"d1:a" * (depth - 1) + b"d" + inner + b"e" * depth


Message = tuple[str, str, bytes, str, list[str], list[str]]
"""Name, comment, bytes, swarmconf's answer (a reason or valid), flags, rules."""

LOOPS: list[Message] = [
    (
        "loop-then-key-not-string",
        "an integer in `=`, then a dict where a key belongs: the deployed parse never gets there",
        HEAD + b"1:=d1:ad1:ai1eeed1:dd9:b0:-eee",
        "BT_KEY_NOT_STRING",
        ["Structure"],
        ["D10", "D12"],
    ),
    (
        "loop-then-truncated",
        "an integer in `=`, and the message ends there without its final `e`",
        HEAD + DIFF_INTEGER,
        "BT_TRUNCATED",
        ["Truncated"],
        ["D10", "D12"],
    ),
    (
        "loop-then-trailing-garbage",
        "an integer in `=`, then a byte of no bt type after the message",
        HEAD + DIFF_INTEGER + b"ex",
        "BT_TRAILING_BYTES",
        ["TrailingBytes"],
        ["D10", "D12"],
    ),
    (
        "loop-then-bad-signature",
        "an integer in `=`, then a signature of 3 bytes that is never read",
        HEAD + DIFF_INTEGER + b"1:~3:abce",
        "DIFF_INTEGER",
        ["Signature"],
        ["D12", "D17"],
    ),
    (
        "loop-leading-zero",
        "the integer in `=` written `i01e`, which the deployed bt reading takes (X1)",
        HEAD + b"1:=d1:ai01eee",
        "BT_LEADING_ZERO",
        ["NonCanonicalEncoding"],
        ["D10", "D12"],
    ),
    (
        "loop-uint64-max",
        "the integer in `=` is 2^64-1, the largest the deployed bt reading takes",
        HEAD + b"1:=d1:ai18446744073709551615eee",
        "BT_INTEGER_RANGE",
        ["EdgeInteger"],
        ["D10", "D12"],
    ),
    (
        "loop-after-valid-entries",
        "`=` holds a marker and a set diff, in order, then the integer",
        HEAD + b"1:=d1:a0:1:blleli1eee1:ci1eee",
        "DIFF_INTEGER",
        ["Structure"],
        ["D12"],
    ),
    (
        "loop-in-lagged-then-bad-diff",
        "an integer in a lagged entry's diff, then an `=` that is not a dict",
        HEAD + lagged(9, b"d1:ai1ee") + b"1:=i5ee",
        "DIFF_INTEGER",
        ["Structure"],
        ["D7", "D12"],
    ),
    (
        "loop-in-lagged-before-entry-length",
        "an integer in a lagged entry's diff, and a fourth element after it: the length of an"
        " entry is checked after its diff",
        HEAD + b"1:<lli9e32:" + HASH_A + b"d1:ai1eei0eee1:=dee",
        "LAGGED_BAD_ENTRY",
        ["CheckOrder"],
        ["D7", "D12"],
    ),
    (
        "loop-in-lagged-deep",
        "an integer 100 dicts deep in a lagged entry's diff (no nesting limit: X7)",
        HEAD + lagged(9, nested(100, b"1:ai1e")) + b"1:=dee",
        "BT_TOO_DEEP",
        ["NestingLimit"],
        ["D7", "D10"],
    ),
    (
        "loop-in-lagged-oldest-read",
        "an integer in the diff of a lagged entry of seqno 6, the oldest the lag reads",
        HEAD + lagged(6, b"d1:ai1ee") + b"1:=dee",
        "DIFF_INTEGER",
        ["LagWindow"],
        ["D7", "D12"],
    ),
]
"""Messages the deployed parse loops on."""

ANSWERED: list[Message] = [
    (
        "no-loop-integer-past-uint64",
        "the integer in `=` is 2^64, which the deployed bt reading refuses before the diff is read",
        HEAD + b"1:=d1:ai18446744073709551616eee",
        "BT_INTEGER_RANGE",
        ["EdgeInteger"],
        ["D10"],
    ),
    (
        "no-loop-bad-structure-inside-diff",
        "an integer in `=`, then a byte of no bt type inside the same diff: the whole diff's"
        " structure is checked before its entries",
        HEAD + b"1:=d1:ai1e1:bxee",
        "BT_UNKNOWN_TYPE",
        ["Structure"],
        ["D10"],
    ),
    (
        "no-loop-diff-truncated",
        "an integer in `=` whose dict never ends",
        HEAD + b"1:=d1:ai1e",
        "BT_TRUNCATED",
        ["Truncated"],
        ["D10"],
    ),
    (
        "no-loop-bad-marker-first",
        "a bad marker before the integer in `=`",
        HEAD + b"1:=d1:a1:x1:bi1eee",
        "DIFF_BAD_MARKER",
        ["CheckOrder"],
        ["D12"],
    ),
    (
        "no-loop-bad-set-first",
        "a set diff of one list before the integer in `=`",
        HEAD + b"1:=d1:allee1:bi1eee",
        "DIFF_BAD_SET",
        ["CheckOrder"],
        ["D12"],
    ),
    (
        "no-loop-diff-keys-unsorted-first",
        "`=`'s keys out of order before its integer: a diff's own keys are checked (only set"
        " diffs go unchecked: X14)",
        HEAD + b"1:=d1:b0:1:ai1eee",
        "BT_KEYS_UNSORTED",
        ["CheckOrder"],
        ["D10", "D12"],
    ),
    (
        "no-loop-bad-data-first",
        "data keys out of order, before an integer in `=`",
        b"d1:#i10e1:&d1:b0:1:a0:e" + DIFF_INTEGER + b"e",
        "BT_KEYS_UNSORTED",
        ["CheckOrder"],
        ["D10", "D11"],
    ),
    (
        "no-loop-lagged-too-high-first",
        "a lagged entry of seqno 10 (not below the message's) before an integer in `=`",
        HEAD + lagged(10, b"de") + DIFF_INTEGER + b"e",
        "LAGGED_SEQNO_TOO_HIGH",
        ["CheckOrder"],
        ["D7"],
    ),
    (
        "no-loop-lagged-unsorted-first",
        "lagged entries out of order before an integer in the second one's diff: the deployed"
        " parse refuses the order first (X10), swarmconf the diff",
        HEAD + b"1:<lli9e32:" + HASH_B + b"deeli9e32:" + HASH_A + b"d1:ai1eeee1:=dee",
        "DIFF_INTEGER",
        ["CheckOrder"],
        ["D7"],
    ),
    (
        "no-loop-integer-in-set-diff",
        "an integer as a set diff's element, where integers belong",
        HEAD + b"1:=d1:alli1eeleeee",
        VALID,
        ["Structure"],
        ["D12"],
    ),
    (
        "no-loop-integer-after-diff",
        "an unknown top-level key after `=` holding an integer",
        HEAD + b"1:=de1:>i1ee",
        VALID,
        ["Structure"],
        ["D9"],
    ),
    (
        "no-loop-integer-in-dropped-lagged",
        "an integer in the diff of a lagged entry of seqno 5, which lag 5 drops unread",
        HEAD + lagged(5, b"d1:ai1ee") + b"1:=dee",
        VALID,
        ["LagWindow"],
        ["D7"],
    ),
    (
        "no-loop-deep-diff-without-integer",
        "`=` nested 100 dicts deep around a marker: read whole (X7)",
        HEAD + b"1:=" + nested(100, b"1:a0:") + b"e",
        "BT_TOO_DEEP",
        ["NestingLimit"],
        ["D10"],
    ),
]
"""Messages one step from a loop that the deployed parse answers."""

parse = Catalogue[BoundGroup]()
merge = Catalogue[BoundGroup]()


def add(g: BoundGroup, messages: list[Message]) -> None:
    for name, comment, message, reason, flags, rules in messages:
        g.case(name, comment, input={"msg": message.hex()}, expect=reason, flags=flags, rules=rules)


@parse
def loops(g: BoundGroup) -> None:
    """The deployed parse never returns (X3)."""
    add(g, LOOPS)


@parse
def answered(g: BoundGroup) -> None:
    """The deployed parse answers: what it refuses comes first, or the integer is not a diff
    value it reads."""
    add(g, ANSWERED)


@merge
def merges_with_a_loop(g: BoundGroup) -> None:
    """A merge parses every input: one that loops stops the merge (X3)."""
    valid = raw_message(S, diff={})
    for name, looping in [
        ("merge-loop-then-key-not-string", LOOPS[0][2]),
        ("merge-loop-in-lagged-deep", LOOPS[9][2]),
    ]:
        g.case(
            name,
            "a valid message merged with one the deployed parse loops on",
            input={"msgs": [valid.hex(), looping.hex()]},
            expect=VALID,
            flags=["Structure"],
            rules=["D14"],
        )


def build() -> SuiteBuilder:
    suite = new_suite(
        "parse_loops",
        "Where the deployed client's parser loops forever (X3) and, one step away, where it"
        " answers: an integer diff value met before any refusal, whatever follows it.",
    )
    parse.fill(suite.group("parse", lag=5))
    merge.fill(suite.group("merge", lag=5))
    return suite
