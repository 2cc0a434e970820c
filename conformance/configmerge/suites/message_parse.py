"""Message parse (D7, D8, D9, D12, D16, D17, X3): every structural reason code, unknown
top-level keys, the order in which checks report, and the lag filtering of lagged entries.

Every case parses one message, under lag 5 unless it is about the lag.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from swarmconf.conformance import btcodec
from swarmconf.conformance.builder import VALID, BoundGroup, SuiteBuilder
from swarmconf.conformance.catalogue import Catalogue
from swarmconf.conformance.configmerge.values import HASH_A, HASH_B, raw_message
from swarmconf.conformance.configmerge.vocabulary import new_suite

S = 10  # the seqno of the messages below


def entry(seqno: int, hash_: bytes = HASH_A, diff: Any = None) -> list[Any]:
    """A lagged entry: seqno, hash and diff (empty unless given)."""
    return [seqno, hash_, {} if diff is None else diff]


def lagged_message(lagged: Any) -> bytes:
    """A message of seqno S with `lagged` as its lagged entries and an empty diff."""
    return raw_message(S, lagged=lagged, diff={})


Refused = tuple[str, bytes, list[str]]
"""A refused message: its name, its bytes, the rules it shows."""

# Every structural reason code, at least three messages each: (reason, flags, messages).
STRUCTURE: list[tuple[str, list[str], list[Refused]]] = [
    (
        "MSG_NOT_DICT",
        ["Structure"],
        [
            ("top-level-int", btcodec.encode(5), ["D8"]),
            ("top-level-string", btcodec.encode(b"config"), ["D8"]),
            ("top-level-list", btcodec.encode([1, {}]), ["D8"]),
            ("top-level-empty-list", b"le", ["D8"]),
        ],
    ),
    (
        "MSG_VERSION_BREAK",
        ["Structure"],
        [
            ("version-break-bang", btcodec.encode({b"!": 1, b"#": 1, b"&": {}, b"=": {}}), ["D8"]),
            (
                "version-break-empty-key",
                btcodec.encode({b"": 2, b"#": 1, b"&": {}, b"=": {}}),
                ["D8"],
            ),
            ("version-break-alone", btcodec.encode({b"\x01": b"v2"}), ["D8"]),
            ("version-break-quote", btcodec.encode({b'"': {}, b"&": {}}), ["D8"]),
        ],
    ),
    (
        "MSG_MISSING_SEQNO",
        ["Structure"],
        [
            ("empty-dict", b"de", ["D8"]),
            ("no-seqno-data-first", btcodec.encode({b"&": {}, b"=": {}}), ["D8"]),
            ("no-seqno-unknown-first", btcodec.encode({b"$": 1, b"&": {}, b"=": {}}), ["D8", "D9"]),
            ("no-seqno-diff-only", btcodec.encode({b"=": {}}), ["D8"]),
        ],
    ),
    (
        "MSG_BAD_SEQNO",
        ["Structure"],
        [
            ("seqno-string", raw_message(b"10", diff={}), ["D8"]),
            ("seqno-list", raw_message([10], diff={}), ["D8"]),
            ("seqno-dict", raw_message({}, diff={}), ["D8"]),
            ("seqno-empty-string", raw_message(b"", diff={}), ["D8"]),
        ],
    ),
    (
        "MSG_MISSING_DATA",
        ["Structure"],
        [
            ("no-data", btcodec.encode({b"#": 1, b"<": [], b"=": {}}), ["D8"]),
            ("no-data-seqno-only", btcodec.encode({b"#": 1}), ["D8"]),
            ("no-data-signed", btcodec.encode({b"#": 1, b"=": {}, b"~": bytes(64)}), ["D8"]),
        ],
    ),
    (
        "MSG_BAD_DATA",
        ["Structure"],
        [
            ("data-int", raw_message(1, 5, diff={}), ["D8"]),
            ("data-string", raw_message(1, b"", diff={}), ["D8"]),
            ("data-list", raw_message(1, [], diff={}), ["D8"]),
        ],
    ),
    (
        "MSG_KEY_AFTER_SIGNATURE",
        ["Signature"],
        [
            (
                "key-after-signature",
                raw_message(1, diff={}, sig=bytes(64), extra={b"\x7f": 1}),
                ["D8", "D17"],
            ),
            (
                "key-after-signature-tilde-tilde",
                raw_message(1, diff={}, sig=bytes(64), extra={b"~~": 1}),
                ["D8", "D17"],
            ),
        ],
    ),
    (
        "MSG_KEY_AFTER_SIGNATURE",
        ["Structure"],
        [
            ("key-after-tilde-unsigned", raw_message(1, diff={}, extra={b"\xff": 1}), ["D8"]),
            (
                "key-after-tilde-unsigned-long",
                raw_message(1, diff={}, extra={b"~\x00": b""}),
                ["D8"],
            ),
        ],
    ),
    (
        "MSG_ENDS_BEFORE_DIFF",
        ["Structure"],
        [
            ("ends-before-diff-lagged", raw_message(1, lagged=[]), ["D8"]),
            ("ends-before-diff-data", raw_message(1), ["D8"]),
            ("ends-before-diff-unknown", raw_message(1, extra={b"<<": 1}), ["D8", "D9"]),
            ("ends-before-diff-dollar", raw_message(1, extra={b"$": b"x"}), ["D8", "D9"]),
        ],
    ),
    (
        "LAGGED_NOT_LIST",
        ["Structure"],
        [
            ("lagged-int", lagged_message(5), ["D7"]),
            ("lagged-string", lagged_message(b""), ["D7"]),
            ("lagged-dict", lagged_message({}), ["D7"]),
        ],
    ),
    (
        "LAGGED_BAD_ENTRY",
        ["Structure"],
        [
            ("lagged-entry-int", lagged_message([9]), ["D7"]),
            ("lagged-entry-empty", lagged_message([[]]), ["D7"]),
            ("lagged-entry-string-seqno", lagged_message([[b"9", HASH_A, {}]]), ["D7"]),
            ("lagged-entry-seqno-only", lagged_message([[9]]), ["D7"]),
            ("lagged-entry-two-items", lagged_message([[9, HASH_A]]), ["D7"]),
            ("lagged-entry-four-items", lagged_message([[9, HASH_A, {}, {}]]), ["D7"]),
            ("lagged-entry-int-hash", lagged_message([[9, 1, {}]]), ["D7"]),
            ("lagged-entry-list-diff", lagged_message([[9, HASH_A, []]]), ["D7"]),
            ("lagged-entry-dict", lagged_message([{b"a": 1}]), ["D7"]),
        ],
    ),
    (
        "LAGGED_BAD_HASH",
        ["Structure"],
        [
            ("lagged-hash-31", lagged_message([entry(9, HASH_A[:31])]), ["D7"]),
            ("lagged-hash-33", lagged_message([entry(9, HASH_A + b"!")]), ["D7"]),
            ("lagged-hash-empty", lagged_message([entry(9, b"")]), ["D7"]),
            ("lagged-hash-hex-text", lagged_message([entry(9, HASH_A.hex().encode())]), ["D7"]),
        ],
    ),
    (
        "LAGGED_SEQNO_TOO_HIGH",
        ["Structure"],
        [
            ("lagged-seqno-equal", lagged_message([entry(S)]), ["D7"]),
            ("lagged-seqno-above", lagged_message([entry(S + 1)]), ["D7"]),
            ("lagged-seqno-max", lagged_message([entry(2**63 - 1)]), ["D7"]),
            ("lagged-seqno-equal-after-good", lagged_message([entry(8), entry(S)]), ["D7"]),
        ],
    ),
    (
        "LAGGED_UNSORTED",
        ["Ordering"],
        [
            ("lagged-descending", lagged_message([entry(9), entry(8)]), ["D7"]),
            (
                "lagged-same-key-other-diff",
                lagged_message([entry(8, diff={b"a": b""}), entry(8, diff={b"b": b""})]),
                ["D7"],
            ),
            (
                "lagged-same-seqno-hash-descending",
                lagged_message([entry(9, HASH_B), entry(9, HASH_A)]),
                ["D7"],
            ),
            ("lagged-duplicate", lagged_message([entry(9), entry(9)]), ["D7"]),
            (
                "lagged-duplicate-seqno-hash-other-diff",
                lagged_message([entry(9), entry(9, diff={b"a": b""})]),
                ["D7"],
            ),
        ],
    ),
    # a lagged entry's diff is checked as the message's own is
    (
        "DIFF_INTEGER",
        ["Structure"],
        [("lagged-diff-integer", lagged_message([entry(9, diff={b"a": 1})]), ["D7", "D12"])],
    ),
    (
        "DIFF_BAD_MARKER",
        ["Structure"],
        [("lagged-diff-bad-marker", lagged_message([entry(9, diff={b"a": b"+"})]), ["D7", "D12"])],
    ),
    (
        "DIFF_NOT_DICT",
        ["Structure"],
        [
            ("diff-int", raw_message(1, diff=1), ["D12"]),
            ("diff-string", raw_message(1, diff=b""), ["D12"]),
            ("diff-list", raw_message(1, diff=[[], []]), ["D12"]),
        ],
    ),
    (
        "DIFF_BAD_MARKER",
        ["Structure"],
        [
            ("diff-marker-x", raw_message(1, diff={b"a": b"x"}), ["D12"]),
            ("diff-marker-double-dash", raw_message(1, diff={b"a": b"--"}), ["D12"]),
            ("diff-marker-plus", raw_message(1, diff={b"a": b"+"}), ["D12"]),
            ("diff-marker-nested", raw_message(1, diff={b"a": {b"b": b" "}}), ["D12"]),
        ],
    ),
    (
        "DIFF_INTEGER",
        ["Structure"],
        [
            ("diff-integer", raw_message(1, diff={b"a": 0}), ["D12"]),
            ("diff-integer-nested", raw_message(1, diff={b"a": {b"b": 1}}), ["D12"]),
            ("diff-integer-negative", raw_message(1, diff={b"z": -1}), ["D12"]),
        ],
    ),
    (
        "DIFF_BAD_SET",
        ["Structure"],
        [
            ("diff-set-one-list", raw_message(1, diff={b"a": [[1]]}), ["D12"]),
            ("diff-set-three-lists", raw_message(1, diff={b"a": [[1], [2], []]}), ["D12"]),
            ("diff-set-scalars", raw_message(1, diff={b"a": [1, 2]}), ["D12"]),
            ("diff-set-empty", raw_message(1, diff={b"a": []}), ["D12"]),
            ("diff-set-nested-list", raw_message(1, diff={b"a": [[[1]], []]}), ["D12"]),
            ("diff-set-dict-element", raw_message(1, diff={b"a": [[], [{}]]}), ["D12"]),
        ],
    ),
    (
        "DIFF_SET_UNSORTED",
        ["Ordering"],
        [
            ("diff-set-unsorted-added", raw_message(1, diff={b"a": [[2, 1], []]}), ["D12"]),
            ("diff-set-unsorted-removed", raw_message(1, diff={b"a": [[], [b"b", b"a"]]}), ["D12"]),
            ("diff-set-string-before-int", raw_message(1, diff={b"a": [[b"a", 1], []]}), ["D12"]),
            ("diff-set-duplicate", raw_message(1, diff={b"a": [[1, 1], []]}), ["D12"]),
        ],
    ),
    (
        "SIG_MALFORMED",
        ["Signature"],
        [
            ("sig-63-bytes", raw_message(1, diff={}, sig=bytes(63)), ["D17"]),
            ("sig-65-bytes", raw_message(1, diff={}, sig=bytes(65)), ["D17"]),
            ("sig-int", raw_message(1, diff={}, sig=0), ["D17"]),
            ("sig-empty", raw_message(1, diff={}, sig=b""), ["D17"]),
        ],
    ),
]

# Messages breaking two rules: the check made first reports (API contract, parse order).
# (name, message, the reason reported, rules)
CHECK_ORDER: list[tuple[str, bytes, str, list[str]]] = [
    (
        "order-version-break-before-bad-data",
        btcodec.encode({b"!": 1, b"#": 1, b"&": 5}),
        "MSG_VERSION_BREAK",
        ["D8"],
    ),
    (
        "order-bad-seqno-before-missing-data",
        btcodec.encode({b"#": b"1", b"=": {}}),
        "MSG_BAD_SEQNO",
        ["D8"],
    ),
    (
        "order-bad-data-before-key-after-tilde",
        raw_message(1, 5, extra={b"\x7f": 1}),
        "MSG_BAD_DATA",
        ["D8"],
    ),
    (
        "order-key-after-tilde-before-data-set",
        raw_message(1, {b"a": []}, extra={b"\x7f": 1}),
        "MSG_KEY_AFTER_SIGNATURE",
        ["D8", "D11"],
    ),
    (
        "order-ends-before-diff-before-bad-lagged",
        raw_message(1, lagged=5),
        "MSG_ENDS_BEFORE_DIFF",
        ["D7", "D8"],
    ),
    (
        "order-data-before-lagged",
        raw_message(S, {b"a": []}, lagged=5, diff={}),
        "DATA_EMPTY_SET",
        ["D7", "D11"],
    ),
    (
        "order-lagged-before-diff",
        raw_message(S, lagged=5, diff=5),
        "LAGGED_NOT_LIST",
        ["D7", "D12"],
    ),
    (
        "order-diff-before-signature",
        raw_message(1, diff=5, sig=b""),
        "DIFF_NOT_DICT",
        ["D12", "D17"],
    ),
    (
        "order-lagged-shape-before-hash",
        lagged_message([[9, b"", {}, 1]]),
        "LAGGED_BAD_ENTRY",
        ["D7"],
    ),
    (
        "order-hash-before-seqno-too-high",
        lagged_message([entry(S, b"")]),
        "LAGGED_BAD_HASH",
        ["D7"],
    ),
    (
        "order-seqno-too-high-before-diff",
        lagged_message([entry(S, diff={b"a": 1})]),
        "LAGGED_SEQNO_TOO_HIGH",
        ["D7"],
    ),
    (
        "order-entry-diff-before-unsorted",
        lagged_message([entry(9), entry(8, diff={b"a": b"x"})]),
        "DIFF_BAD_MARKER",
        ["D7"],
    ),
    (
        "order-diff-keys-first-violation",
        raw_message(1, diff={b"a": [[2, 1], []], b"b": b"x"}),
        "DIFF_SET_UNSORTED",
        ["D12"],
    ),
    (
        "order-diff-keys-first-violation-2",
        raw_message(1, diff={b"a": b"x", b"b": 1}),
        "DIFF_BAD_MARKER",
        ["D12"],
    ),
    ("order-bt-before-structure", b"d1:!i01ee", "BT_LEADING_ZERO", ["D8", "D10"]),
]


def refusals() -> Iterator[tuple[str, bytes, str, list[str], list[str]]]:
    """Every refused message above: name, bytes, reason, flags and rules."""
    for reason, flags, messages in STRUCTURE:
        for name, message, rules in messages:
            yield name, message, reason, flags, rules
    for name, message, reason, rules in CHECK_ORDER:
        yield name, message, reason, ["CheckOrder"], rules


case = Catalogue[BoundGroup]()


@case
def refused(g: BoundGroup) -> None:
    """Each message refused with its reason (X5: the deployed client words it otherwise)."""
    for name, message, reason, flags, rules in refusals():
        g.case(
            name,
            f"{name.replace('-', ' ')}: refused with {reason}",
            input={"msg": message.hex()},
            expect=reason,
            flags=flags,
            rules=[*rules, "X5"],
        )


@case
def minimal_valid_messages(g: BoundGroup) -> None:
    for name, message in [
        ("minimal-diff-only", b"d1:#i0e1:&de1:=dee"),
        ("minimal-with-lagged", b"d1:#i0e1:&de1:<le1:=dee"),
        ("unknown-key-reaches-diff-position", raw_message(1, extra={b">": 1})),
        ("signature-only-after-data", raw_message(1, sig=bytes(64))),
    ]:
        g.case(
            name,
            f"{name.replace('-', ' ')}: valid (D8: a key at or after `=` is enough)",
            input={"msg": message.hex()},
            expect=VALID,
            flags=["Structure"],
            rules=["D8"],
        )


@case
def unknown_top_level_keys(g: BoundGroup) -> None:
    values: list[tuple[str, Any]] = [
        ("int", 7),
        ("string", b"future"),
        ("empty-list", []),
        ("empty-dict", {}),
        ("unsorted-list", [3, 1, 2, 1]),
        ("nested", {b"x": [[], {b"y": b""}]}),
    ]
    for key in [b"$", b"*", b"<<", b">", b"?", b"a", b"}"]:
        for name, value in values:
            message = raw_message(1, {b"k": 1}, lagged=[], diff={}, extra={key: value})
            g.case(
                f"unknown-key-{key.hex()}-{name}",
                f"unknown top-level key {key!r} holding {name}: kept verbatim in `extra` (D9)",
                input={"msg": message.hex()},
                expect=VALID,
                flags=["UnknownTopLevelKey"],
                rules=["D8", "D9"],
            )


def lag_window(lag: int) -> list[tuple[str, str, list[Any], list[str], str]]:
    """The lag filter's cases under `lag`: name, comment, lagged entries, flags, expect."""
    cases: list[tuple[str, str, list[Any], list[str], str]] = [
        (
            f"lag-{lag}-keeps-window",
            f"seqno {S} with entries 1..{S - 1} under lag {lag}: keeps {S - lag + 1}..{S - 1}",
            [entry(n) for n in range(1, S)],
            ["LagWindow"],
            VALID,
        )
    ]
    garbage: list[Any] = [[S - 9], [S - 8, b"short"], [S - 7, 5, 5, 5]]
    too_old = [item for item in garbage if item[0] <= S - lag]
    if too_old:
        cases.append(
            (
                f"lag-{lag}-drops-malformed-old-entries",
                f"malformed entries with seqno <= {S - lag} are dropped before being checked",
                [*too_old, entry(S - 1)],
                ["LagWindow", "Stale"],
                VALID,
            )
        )
    return [
        *cases,
        (
            f"lag-{lag}-ignores-order-of-dropped",
            "dropped entries out of order do not make the kept ones unsorted",
            [entry(S - 9), entry(S - 10), entry(S - 1)],
            ["LagWindow", "Ordering"],
            VALID,
        ),
        (
            f"lag-{lag}-boundary-entry-dropped",
            f"an entry at seqno S-lag = {S - lag} with a bad hash is outside the window",
            [entry(S - lag, b"")],
            ["LagWindow", "Stale"],
            VALID,
        ),
        (
            f"lag-{lag}-first-kept-entry-checked",
            f"an entry at seqno S-lag+1 = {S - lag + 1} is kept, so its bad hash is refused",
            [entry(S - lag + 1, b"")],
            ["LagWindow"],
            "LAGGED_BAD_HASH",
        ),
    ]


@case
def lag_filter(g: BoundGroup) -> None:
    """Entries with seqno <= S-lag are dropped unread; the rest must be well-formed (D7)."""
    for lag in range(1, 10):
        window = g.suite.group("parse", lag=lag)
        for name, comment, lagged, flags, expect in lag_window(lag):
            window.case(
                name,
                comment,
                input={"msg": lagged_message(lagged).hex()},
                expect=expect,
                flags=flags,
                rules=["D7", "D16"],
            )


@case
def bad_lag_refused(g: BoundGroup) -> None:
    for lag in (0, -1, -5):
        g.suite.case(
            f"lag-{lag}-refused",
            f"lag {lag} is a usage error (D16; the deployed client asserts, X4)",
            op="parse",
            input={"msg": raw_message(S, diff={}).hex(), "lag": lag},
            expect="BAD_LAG",
            flags=["BadLag"],
            rules=["D16"],
        )


@case
def any_int64_seqno(g: BoundGroup) -> None:
    for seqno in (-(2**63), -1, 0, 2**63 - 1):
        g.case(
            f"seqno-{seqno}",
            f"seqno {seqno}: any int64 is a valid seqno (D8)",
            input={"msg": raw_message(seqno, diff={}).hex()},
            expect=VALID,
            flags=["EdgeInteger"],
            rules=["D8"],
        )


def build() -> SuiteBuilder:
    suite = new_suite(
        "message_parse",
        "Parsing config messages: every structural reason code (at least three cases each),"
        " the order in which checks report, unknown top-level keys (D9), lag filtering (D7).",
    )
    case.fill(suite.group("parse", lag=5))
    return suite
