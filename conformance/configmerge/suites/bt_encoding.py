"""bt encoding (D10, X1): canonical forms accepted, every non-canonical form refused.

Each bt fragment is placed in several positions of an otherwise valid message; a strict
decoder reports the first violation met reading left to right, whatever the position means.
A canonical fragment is refused only where the message's structure wants another kind of value
(a string as the seqno, a list in a set). Every case parses one message under lag 5.
"""

from __future__ import annotations

from swarmconf.conformance.builder import VALID, BoundGroup, SuiteBuilder
from swarmconf.conformance.catalogue import Catalogue
from swarmconf.conformance.configmerge.values import HASH_A, minimal
from swarmconf.conformance.configmerge.vocabulary import new_suite
from swarmconf.spec.configmerge import examples

# What a canonical fragment shows where the message's structure wants something else.
TOP_LEVEL_NOT_DICT = {"top-level": "MSG_NOT_DICT"}
SEQNO_NOT_INT = {"seqno": "MSG_BAD_SEQNO"}
ELEMENT_NOT_SCALAR = {
    "set": "DATA_SET_NOT_SCALAR",
    "diff": "DIFF_BAD_SET",
    "lagged": "DIFF_BAD_SET",
}

# (name, fragment, what parsing it shows in the places listed; valid in the others)
CANONICAL: list[tuple[str, bytes, dict[str, str]]] = [
    ("int-zero", b"i0e", TOP_LEVEL_NOT_DICT),
    ("int-negative", b"i-1e", TOP_LEVEL_NOT_DICT),
    ("int-max", b"i9223372036854775807e", TOP_LEVEL_NOT_DICT),
    ("int-min", b"i-9223372036854775808e", TOP_LEVEL_NOT_DICT),
    ("string-empty", b"0:", {**SEQNO_NOT_INT, **TOP_LEVEL_NOT_DICT}),
    ("string-binary", b"3:\x00e\xff", {**SEQNO_NOT_INT, **TOP_LEVEL_NOT_DICT}),
    ("string-long", b"300:" + b"x" * 300, {**SEQNO_NOT_INT, **TOP_LEVEL_NOT_DICT}),
    # in the data, a list is a set: this one holds a list
    (
        "list-nested",
        b"li1el1:aee",
        {
            "data": "DATA_SET_NOT_SCALAR",
            **ELEMENT_NOT_SCALAR,
            **SEQNO_NOT_INT,
            **TOP_LEVEL_NOT_DICT,
        },
    ),
    (
        "dict-sorted",
        b"d1:Ai1e1:ai2e2:aai3ee",
        {**ELEMENT_NOT_SCALAR, **SEQNO_NOT_INT, "top-level": "MSG_MISSING_SEQNO"},
    ),
]

# (name, fragment, the first violation met reading it)
NON_CANONICAL: list[tuple[str, bytes, str]] = [
    ("int-leading-zero", b"i01e", "BT_LEADING_ZERO"),
    ("int-double-zero", b"i00e", "BT_LEADING_ZERO"),
    ("int-negative-leading-zero", b"i-01e", "BT_LEADING_ZERO"),
    ("int-negative-zero", b"i-0e", "BT_NEGATIVE_ZERO"),
    ("int-negative-double-zero", b"i-00e", "BT_LEADING_ZERO"),
    ("int-empty", b"ie", "BT_BAD_INTEGER"),
    ("int-minus-only", b"i-e", "BT_BAD_INTEGER"),
    ("int-plus-sign", b"i+1e", "BT_BAD_INTEGER"),
    ("int-decimal-point", b"i1.0e", "BT_BAD_INTEGER"),
    ("int-space", b"i 1e", "BT_BAD_INTEGER"),
    ("int-double-minus", b"i--1e", "BT_BAD_INTEGER"),
    ("int-hex-digit", b"i1ae", "BT_BAD_INTEGER"),
    ("int-over-int64", b"i9223372036854775808e", "BT_INTEGER_RANGE"),
    ("int-under-int64", b"i-9223372036854775809e", "BT_INTEGER_RANGE"),
    ("int-uint64-max", b"i18446744073709551615e", "BT_INTEGER_RANGE"),
    ("int-huge", b"i" + b"9" * 40 + b"e", "BT_INTEGER_RANGE"),
    ("string-length-leading-zero", b"02:hi", "BT_LEADING_ZERO"),
    ("string-length-zero-padded-empty", b"00:", "BT_LEADING_ZERO"),
    ("string-length-negative", b"-1:x", "BT_UNKNOWN_TYPE"),
    ("string-length-letter", b"2x:hi", "BT_BAD_STRING_LENGTH"),
    ("string-length-space", b"2 :hi", "BT_BAD_STRING_LENGTH"),
    ("string-length-plus", b"1+1:hi", "BT_BAD_STRING_LENGTH"),
    ("unknown-type-letter", b"x", "BT_UNKNOWN_TYPE"),
    ("unknown-type-end", b"e", "BT_UNKNOWN_TYPE"),
    ("unknown-type-uppercase-int", b"I1e", "BT_UNKNOWN_TYPE"),
    ("unknown-type-space", b" i1e", "BT_UNKNOWN_TYPE"),
    ("dict-keys-unsorted", b"d1:bi1e1:ai2ee", "BT_KEYS_UNSORTED"),
    ("dict-keys-unsorted-prefix", b"d2:aai1e1:ai2ee", "BT_KEYS_UNSORTED"),
    ("dict-keys-unsorted-case", b"d1:ai1e1:Ai2ee", "BT_KEYS_UNSORTED"),
    ("dict-key-duplicate", b"d1:ai1e1:ai2ee", "BT_DUPLICATE_KEY"),
    ("dict-key-duplicate-empty", b"d0:i1e0:i2ee", "BT_DUPLICATE_KEY"),
    ("dict-key-int", b"di1ei2ee", "BT_KEY_NOT_STRING"),
    ("dict-key-list", b"dlei2ee", "BT_KEY_NOT_STRING"),
    ("dict-key-dict", b"ddei2ee", "BT_KEY_NOT_STRING"),
]


def deep(depth: int) -> bytes:
    """An integer in lists nested `depth` levels deep."""
    return b"l" * depth + b"i1e" + b"e" * depth


def with_unknown_key(value: bytes) -> bytes:
    """A minimal valid message with `value` under the unknown top-level key `_` (D9)."""
    return b"d1:#i1e1:&de1:<le1:=de1:_" + value + b"e"


def positions(fragment: bytes) -> list[tuple[str, bytes, list[str]]]:
    """Messages holding `fragment` at various places, with the rules each place brings in."""
    # In diffs the fragment is an element of a set diff: a diff value that is an integer
    # would make the deployed client loop (X3), which cases of its own show.
    set_diff = b"d1:kll" + fragment + b"eleee"
    lagged_entry = b"li0e32:" + HASH_A + set_diff + b"e"
    return [
        ("data", b"d1:#i1e1:&d1:k" + fragment + b"e1:<le1:=dee", ["D11"]),
        ("set", b"d1:#i1e1:&d1:kl" + fragment + b"ee1:<le1:=dee", ["D11"]),
        ("seqno", b"d1:#" + fragment + b"1:&de1:<le1:=dee", ["D8"]),
        ("diff", b"d1:#i1e1:&de1:<le1:=" + set_diff + b"e", ["D12"]),
        ("lagged", b"d1:#i1e1:&de1:<l" + lagged_entry + b"e1:=dee", ["D7"]),
        ("unknown-key", with_unknown_key(fragment), ["D9"]),
        ("top-level", fragment, ["D8"]),
    ]


case = Catalogue[BoundGroup]()


@case
def canonical_fragments(g: BoundGroup) -> None:
    for name, fragment, misplaced in CANONICAL:
        for place, message, rules in positions(fragment):
            g.case(
                f"{name}-in-{place}",
                f"fragment {fragment[:40]!r} in the {place}",
                input={"msg": message.hex()},
                expect=misplaced.get(place, VALID),
                flags=["CanonicalEncoding"],
                rules=["D10", *rules],
            )


@case
def non_canonical_fragments(g: BoundGroup) -> None:
    for name, fragment, reason in NON_CANONICAL:
        for place, message, rules in positions(fragment):
            if fragment == b"e" and place in ("set", "diff", "lagged"):
                continue  # `le` closes the list: an empty list, not a bt error
            if place == "unknown-key" and name in ("int-over-int64", "int-uint64-max"):
                continue  # allowed there (D9): the wide-int cases below cover it
            g.case(
                f"{name}-in-{place}",
                f"fragment {fragment[:40]!r} in the {place}: the first violation is {reason}",
                input={"msg": message.hex()},
                expect=reason,
                flags=["NonCanonicalEncoding"],
                rules=["D10", *rules],
            )


@case
def wide_ints_in_unknown_keys(g: BoundGroup) -> None:
    """Integers in unknown top-level values may range over [-2^63, 2^64-1] (D9)."""
    for name, number, expect in [
        ("uint64-max", 2**64 - 1, VALID),
        ("int64-max-plus-one", 2**63, VALID),
        ("int64-min", -(2**63), VALID),
        ("uint64-max-plus-one", 2**64, "BT_INTEGER_RANGE"),
        ("int64-min-minus-one", -(2**63) - 1, "BT_INTEGER_RANGE"),
    ]:
        for place, wrap in [
            ("value", b"i%de"),
            ("list", b"li1ei%dee"),
            ("nested-dict", b"d1:xd1:yi%deee"),
        ]:
            g.case(
                f"wide-int-{name}-in-unknown-{place}",
                f"integer {number} inside an unknown top-level key's {place} (D9 allows"
                " [-2^63, 2^64-1] there)",
                input={"msg": with_unknown_key(wrap % number).hex()},
                expect=expect,
                flags=["UnknownTopLevelKey", "EdgeInteger"],
                rules=["D9", "D10"],
            )


@case
def wide_ints_outside_unknown_keys(g: BoundGroup) -> None:
    for name, number in [("uint64-max", 2**64 - 1), ("int64-max-plus-one", 2**63)]:
        wide = b"i%de" % number
        for place, message in [
            ("data", b"d1:#i1e1:&d1:k" + wide + b"e1:<le1:=dee"),
            ("seqno", b"d1:#" + wide + b"1:&de1:<le1:=dee"),
            ("lagged-seqno", b"d1:#i1e1:&de1:<ll" + wide + b"eee1:=dee"),
        ]:
            g.case(
                f"wide-int-{name}-outside-unknown-keys-{place}",
                f"integer {number} in the {place}: outside unknown top-level keys only signed"
                " 64 bits are allowed",
                input={"msg": message.hex()},
                expect="BT_INTEGER_RANGE",
                flags=["EdgeInteger"],
                rules=["D9", "D10"],
            )


@case
def nesting_depth(g: BoundGroup) -> None:
    """At most 64 levels of lists and dicts, the top-level dict counted."""
    for depth, expect in [(63, VALID), (64, VALID), (65, "BT_TOO_DEEP"), (200, "BT_TOO_DEEP")]:
        g.case(
            f"nesting-depth-{depth}",
            f"lists nested {depth} levels deep counting the top-level dict (limit 64)",
            input={"msg": with_unknown_key(deep(depth - 1)).hex()},
            expect=expect,
            flags=["NestingLimit"],
            rules=["D10"],
        )
    for depth, expect in [(64, "DATA_EMPTY_DICT"), (65, "BT_TOO_DEEP")]:
        # dicts nested in the data: the top level and `&` are the first two levels
        data = b"d1:k" * (depth - 2) + b"de" + b"e" * (depth - 2)
        g.case(
            f"nesting-depth-{depth}-data-dicts",
            f"dicts nested {depth} levels deep inside the data",
            input={"msg": (b"d1:#i1e1:&" + data + b"1:=dee").hex()},
            expect=expect,
            flags=["NestingLimit"],
            rules=["D10", "D11"],
        )
    g.case(
        "nesting-depth-72-diff",
        "a diff nested 72 levels deep",
        input={"msg": (b"d1:#i1e1:&de1:=" + b"d1:k" * 70 + b"0:" + b"e" * 70 + b"e").hex()},
        expect="BT_TOO_DEEP",
        flags=["NestingLimit"],
        rules=["D10", "D12"],
    )


@case
def numbers_too_long_to_read(g: BoundGroup) -> None:
    """An integer or a string length with too many digits is refused before it is read."""
    for digits in (21, 5000):
        for name, comment, data, expect, flag in [
            (
                f"integer-{digits}-digits",
                f"a data integer of {digits} digits",
                b"d1:ki" + b"7" * digits + b"ee",
                "BT_INTEGER_RANGE",
                "EdgeInteger",
            ),
            (
                f"string-length-{digits}-digits",
                f"a data key whose length has {digits} digits: more bytes than any message holds",
                b"d" + b"9" * digits + b":xe",
                "BT_TRUNCATED",
                "Truncated",
            ),
        ]:
            g.case(
                name,
                comment,
                input={"msg": (b"d1:#i1e1:&" + data + b"1:<le1:=dee").hex()},
                expect=expect,
                flags=[flag],
                rules=["D10"],
            )


@case
def every_truncation_of_m124(g: BoundGroup) -> None:
    base = examples.m124()
    for length in range(len(base)):
        g.case(
            f"truncated-m124-at-{length}",
            f"the design text's m124 cut after {length} of {len(base)} bytes",
            input={"msg": base[:length].hex()},
            expect="BT_TRUNCATED",
            flags=["Truncated"],
            rules=["D10"],
        )


@case
def trailing_bytes(g: BoundGroup) -> None:
    for name, suffix in [
        ("newline", b"\n"),
        ("zero-byte", b"\x00"),
        ("end-marker", b"e"),
        ("second-message", minimal()),
        ("space", b" "),
        ("int", b"i0e"),
    ]:
        for source_name, source in [("m118", examples.m118()), ("minimal", minimal())]:
            g.case(
                f"trailing-{name}-after-{source_name}",
                f"a valid message ({source_name}) followed by {suffix[:20]!r}",
                input={"msg": (source + suffix).hex()},
                expect="BT_TRAILING_BYTES",
                flags=["TrailingBytes"],
                rules=["D10"],
            )


def build() -> SuiteBuilder:
    suite = new_suite(
        "bt_encoding",
        "Canonical bt encoding (D10): each canonical and non-canonical fragment placed in the"
        " data, a set, the seqno, a diff, a lagged entry, an unknown top-level key and the top"
        " level; truncated and over-long messages.",
    )
    case.fill(suite.group("parse", lag=5))
    return suite
