"""Message parse (D7, D8, D9, D12, D16, D17, X3): every structural reason code, unknown
top-level keys, the order in which checks report, and the lag filtering of lagged entries."""

from __future__ import annotations

from typing import Any

from swarmconf.conformance import btcodec
from swarmconf.conformance.configmerge.suite import Suite
from swarmconf.conformance.configmerge.values import HASH_A, HASH_B, raw_message

S = 10  # the seqno of the messages below


def _entry(seqno: int, hash_: bytes = HASH_A, diff: Any = None) -> list[Any]:
    return [seqno, hash_, {} if diff is None else diff]


# (name, message, reason, rules, flags)
Structure = list[tuple[str, bytes, str, list[str], list[str]]]


def structure_cases() -> Structure:
    enc = btcodec.encode
    return [
        ("top-level-int", enc(5), "MSG_NOT_DICT", ["D8"], []),
        ("top-level-string", enc(b"config"), "MSG_NOT_DICT", ["D8"], []),
        ("top-level-list", enc([1, {}]), "MSG_NOT_DICT", ["D8"], []),
        ("top-level-empty-list", b"le", "MSG_NOT_DICT", ["D8"], []),
        (
            "version-break-bang",
            enc({b"!": 1, b"#": 1, b"&": {}, b"=": {}}),
            "MSG_VERSION_BREAK",
            ["D8"],
            [],
        ),
        (
            "version-break-empty-key",
            enc({b"": 2, b"#": 1, b"&": {}, b"=": {}}),
            "MSG_VERSION_BREAK",
            ["D8"],
            [],
        ),
        ("version-break-alone", enc({b"\x01": b"v2"}), "MSG_VERSION_BREAK", ["D8"], []),
        ("version-break-quote", enc({b'"': {}, b"&": {}}), "MSG_VERSION_BREAK", ["D8"], []),
        ("empty-dict", b"de", "MSG_MISSING_SEQNO", ["D8"], []),
        ("no-seqno-data-first", enc({b"&": {}, b"=": {}}), "MSG_MISSING_SEQNO", ["D8"], []),
        (
            "no-seqno-unknown-first",
            enc({b"$": 1, b"&": {}, b"=": {}}),
            "MSG_MISSING_SEQNO",
            ["D8", "D9"],
            [],
        ),
        ("no-seqno-diff-only", enc({b"=": {}}), "MSG_MISSING_SEQNO", ["D8"], []),
        ("seqno-string", raw_message(b"10", diff={}), "MSG_BAD_SEQNO", ["D8"], []),
        ("seqno-list", raw_message([10], diff={}), "MSG_BAD_SEQNO", ["D8"], []),
        ("seqno-dict", raw_message({}, diff={}), "MSG_BAD_SEQNO", ["D8"], []),
        ("seqno-empty-string", raw_message(b"", diff={}), "MSG_BAD_SEQNO", ["D8"], []),
        ("no-data", enc({b"#": 1, b"<": [], b"=": {}}), "MSG_MISSING_DATA", ["D8"], []),
        ("no-data-seqno-only", enc({b"#": 1}), "MSG_MISSING_DATA", ["D8"], []),
        (
            "no-data-signed",
            enc({b"#": 1, b"=": {}, b"~": bytes(64)}),
            "MSG_MISSING_DATA",
            ["D8"],
            [],
        ),
        ("data-int", raw_message(1, 5, diff={}), "MSG_BAD_DATA", ["D8"], []),
        ("data-string", raw_message(1, b"", diff={}), "MSG_BAD_DATA", ["D8"], []),
        ("data-list", raw_message(1, [], diff={}), "MSG_BAD_DATA", ["D8"], []),
        (
            "key-after-signature",
            raw_message(1, diff={}, sig=bytes(64), extra={b"\x7f": 1}),
            "MSG_KEY_AFTER_SIGNATURE",
            ["D8", "D17"],
            ["Signature"],
        ),
        (
            "key-after-signature-tilde-tilde",
            raw_message(1, diff={}, sig=bytes(64), extra={b"~~": 1}),
            "MSG_KEY_AFTER_SIGNATURE",
            ["D8", "D17"],
            ["Signature"],
        ),
        (
            "key-after-tilde-unsigned",
            raw_message(1, diff={}, extra={b"\xff": 1}),
            "MSG_KEY_AFTER_SIGNATURE",
            ["D8"],
            [],
        ),
        (
            "key-after-tilde-unsigned-long",
            raw_message(1, diff={}, extra={b"~\x00": b""}),
            "MSG_KEY_AFTER_SIGNATURE",
            ["D8"],
            [],
        ),
        ("ends-before-diff-lagged", raw_message(1, lagged=[]), "MSG_ENDS_BEFORE_DIFF", ["D8"], []),
        ("ends-before-diff-data", raw_message(1), "MSG_ENDS_BEFORE_DIFF", ["D8"], []),
        (
            "ends-before-diff-unknown",
            raw_message(1, extra={b"<<": 1}),
            "MSG_ENDS_BEFORE_DIFF",
            ["D8", "D9"],
            [],
        ),
        (
            "ends-before-diff-dollar",
            raw_message(1, extra={b"$": b"x"}),
            "MSG_ENDS_BEFORE_DIFF",
            ["D8", "D9"],
            [],
        ),
        ("lagged-int", raw_message(S, lagged=5, diff={}), "LAGGED_NOT_LIST", ["D7"], []),
        ("lagged-string", raw_message(S, lagged=b"", diff={}), "LAGGED_NOT_LIST", ["D7"], []),
        ("lagged-dict", raw_message(S, lagged={}, diff={}), "LAGGED_NOT_LIST", ["D7"], []),
        ("lagged-entry-int", raw_message(S, lagged=[9], diff={}), "LAGGED_BAD_ENTRY", ["D7"], []),
        (
            "lagged-entry-empty",
            raw_message(S, lagged=[[]], diff={}),
            "LAGGED_BAD_ENTRY",
            ["D7"],
            [],
        ),
        (
            "lagged-entry-string-seqno",
            raw_message(S, lagged=[[b"9", HASH_A, {}]], diff={}),
            "LAGGED_BAD_ENTRY",
            ["D7"],
            [],
        ),
        (
            "lagged-entry-seqno-only",
            raw_message(S, lagged=[[9]], diff={}),
            "LAGGED_BAD_ENTRY",
            ["D7"],
            [],
        ),
        (
            "lagged-entry-two-items",
            raw_message(S, lagged=[[9, HASH_A]], diff={}),
            "LAGGED_BAD_ENTRY",
            ["D7"],
            [],
        ),
        (
            "lagged-entry-four-items",
            raw_message(S, lagged=[[9, HASH_A, {}, {}]], diff={}),
            "LAGGED_BAD_ENTRY",
            ["D7"],
            [],
        ),
        (
            "lagged-entry-int-hash",
            raw_message(S, lagged=[[9, 1, {}]], diff={}),
            "LAGGED_BAD_ENTRY",
            ["D7"],
            [],
        ),
        (
            "lagged-entry-list-diff",
            raw_message(S, lagged=[[9, HASH_A, []]], diff={}),
            "LAGGED_BAD_ENTRY",
            ["D7"],
            [],
        ),
        (
            "lagged-entry-dict",
            raw_message(S, lagged=[{b"a": 1}], diff={}),
            "LAGGED_BAD_ENTRY",
            ["D7"],
            [],
        ),
        (
            "lagged-hash-31",
            raw_message(S, lagged=[_entry(9, HASH_A[:31])], diff={}),
            "LAGGED_BAD_HASH",
            ["D7"],
            [],
        ),
        (
            "lagged-hash-33",
            raw_message(S, lagged=[_entry(9, HASH_A + b"!")], diff={}),
            "LAGGED_BAD_HASH",
            ["D7"],
            [],
        ),
        (
            "lagged-hash-empty",
            raw_message(S, lagged=[_entry(9, b"")], diff={}),
            "LAGGED_BAD_HASH",
            ["D7"],
            [],
        ),
        (
            "lagged-hash-hex-text",
            raw_message(S, lagged=[_entry(9, HASH_A.hex().encode())], diff={}),
            "LAGGED_BAD_HASH",
            ["D7"],
            [],
        ),
        (
            "lagged-seqno-equal",
            raw_message(S, lagged=[_entry(S)], diff={}),
            "LAGGED_SEQNO_TOO_HIGH",
            ["D7"],
            [],
        ),
        (
            "lagged-seqno-above",
            raw_message(S, lagged=[_entry(S + 1)], diff={}),
            "LAGGED_SEQNO_TOO_HIGH",
            ["D7"],
            [],
        ),
        (
            "lagged-seqno-max",
            raw_message(S, lagged=[_entry(2**63 - 1)], diff={}),
            "LAGGED_SEQNO_TOO_HIGH",
            ["D7"],
            [],
        ),
        (
            "lagged-seqno-equal-after-good",
            raw_message(S, lagged=[_entry(8), _entry(S)], diff={}),
            "LAGGED_SEQNO_TOO_HIGH",
            ["D7"],
            [],
        ),
        (
            "lagged-descending",
            raw_message(S, lagged=[_entry(9), _entry(8)], diff={}),
            "LAGGED_UNSORTED",
            ["D7"],
            ["Ordering"],
        ),
        (
            "lagged-same-key-other-diff",
            raw_message(
                S, lagged=[_entry(8, diff={b"a": b""}), _entry(8, diff={b"b": b""})], diff={}
            ),
            "LAGGED_UNSORTED",
            ["D7"],
            ["Ordering"],
        ),
        (
            "lagged-same-seqno-hash-descending",
            raw_message(S, lagged=[_entry(9, HASH_B), _entry(9, HASH_A)], diff={}),
            "LAGGED_UNSORTED",
            ["D7"],
            ["Ordering"],
        ),
        (
            "lagged-duplicate",
            raw_message(S, lagged=[_entry(9), _entry(9)], diff={}),
            "LAGGED_UNSORTED",
            ["D7"],
            ["Ordering"],
        ),
        (
            "lagged-duplicate-seqno-hash-other-diff",
            raw_message(S, lagged=[_entry(9), _entry(9, diff={b"a": b""})], diff={}),
            "LAGGED_UNSORTED",
            ["D7"],
            ["Ordering"],
        ),
        (
            "lagged-diff-integer",
            raw_message(S, lagged=[_entry(9, diff={b"a": 1})], diff={}),
            "DIFF_INTEGER",
            ["D7", "D12"],
            [],
        ),
        (
            "lagged-diff-bad-marker",
            raw_message(S, lagged=[_entry(9, diff={b"a": b"+"})], diff={}),
            "DIFF_BAD_MARKER",
            ["D7", "D12"],
            [],
        ),
        ("diff-int", raw_message(1, diff=1), "DIFF_NOT_DICT", ["D12"], []),
        ("diff-string", raw_message(1, diff=b""), "DIFF_NOT_DICT", ["D12"], []),
        ("diff-list", raw_message(1, diff=[[], []]), "DIFF_NOT_DICT", ["D12"], []),
        ("diff-marker-x", raw_message(1, diff={b"a": b"x"}), "DIFF_BAD_MARKER", ["D12"], []),
        (
            "diff-marker-double-dash",
            raw_message(1, diff={b"a": b"--"}),
            "DIFF_BAD_MARKER",
            ["D12"],
            [],
        ),
        ("diff-marker-plus", raw_message(1, diff={b"a": b"+"}), "DIFF_BAD_MARKER", ["D12"], []),
        (
            "diff-marker-nested",
            raw_message(1, diff={b"a": {b"b": b" "}}),
            "DIFF_BAD_MARKER",
            ["D12"],
            [],
        ),
        (
            "diff-integer",
            raw_message(1, diff={b"a": 0}),
            "DIFF_INTEGER",
            ["D12"],
            [],
        ),
        (
            "diff-integer-nested",
            raw_message(1, diff={b"a": {b"b": 1}}),
            "DIFF_INTEGER",
            ["D12"],
            [],
        ),
        (
            "diff-integer-negative",
            raw_message(1, diff={b"z": -1}),
            "DIFF_INTEGER",
            ["D12"],
            [],
        ),
        ("diff-set-one-list", raw_message(1, diff={b"a": [[1]]}), "DIFF_BAD_SET", ["D12"], []),
        (
            "diff-set-three-lists",
            raw_message(1, diff={b"a": [[1], [2], []]}),
            "DIFF_BAD_SET",
            ["D12"],
            [],
        ),
        ("diff-set-scalars", raw_message(1, diff={b"a": [1, 2]}), "DIFF_BAD_SET", ["D12"], []),
        ("diff-set-empty", raw_message(1, diff={b"a": []}), "DIFF_BAD_SET", ["D12"], []),
        (
            "diff-set-nested-list",
            raw_message(1, diff={b"a": [[[1]], []]}),
            "DIFF_BAD_SET",
            ["D12"],
            [],
        ),
        (
            "diff-set-dict-element",
            raw_message(1, diff={b"a": [[], [{}]]}),
            "DIFF_BAD_SET",
            ["D12"],
            [],
        ),
        (
            "diff-set-unsorted-added",
            raw_message(1, diff={b"a": [[2, 1], []]}),
            "DIFF_SET_UNSORTED",
            ["D12"],
            ["Ordering"],
        ),
        (
            "diff-set-unsorted-removed",
            raw_message(1, diff={b"a": [[], [b"b", b"a"]]}),
            "DIFF_SET_UNSORTED",
            ["D12"],
            ["Ordering"],
        ),
        (
            "diff-set-string-before-int",
            raw_message(1, diff={b"a": [[b"a", 1], []]}),
            "DIFF_SET_UNSORTED",
            ["D12"],
            ["Ordering"],
        ),
        (
            "diff-set-duplicate",
            raw_message(1, diff={b"a": [[1, 1], []]}),
            "DIFF_SET_UNSORTED",
            ["D12"],
            ["Ordering"],
        ),
        (
            "sig-63-bytes",
            raw_message(1, diff={}, sig=bytes(63)),
            "SIG_MALFORMED",
            ["D17"],
            ["Signature"],
        ),
        (
            "sig-65-bytes",
            raw_message(1, diff={}, sig=bytes(65)),
            "SIG_MALFORMED",
            ["D17"],
            ["Signature"],
        ),
        ("sig-int", raw_message(1, diff={}, sig=0), "SIG_MALFORMED", ["D17"], ["Signature"]),
        ("sig-empty", raw_message(1, diff={}, sig=b""), "SIG_MALFORMED", ["D17"], ["Signature"]),
    ]


# Messages breaking two rules: the check made first reports (API contract, parse order).
ORDERING: Structure = [
    (
        "order-version-break-before-bad-data",
        btcodec.encode({b"!": 1, b"#": 1, b"&": 5}),
        "MSG_VERSION_BREAK",
        ["D8"],
        ["CheckOrder"],
    ),
    (
        "order-bad-seqno-before-missing-data",
        btcodec.encode({b"#": b"1", b"=": {}}),
        "MSG_BAD_SEQNO",
        ["D8"],
        ["CheckOrder"],
    ),
    (
        "order-bad-data-before-key-after-tilde",
        raw_message(1, 5, extra={b"\x7f": 1}),
        "MSG_BAD_DATA",
        ["D8"],
        ["CheckOrder"],
    ),
    (
        "order-key-after-tilde-before-data-set",
        raw_message(1, {b"a": []}, extra={b"\x7f": 1}),
        "MSG_KEY_AFTER_SIGNATURE",
        ["D8", "D11"],
        ["CheckOrder"],
    ),
    (
        "order-ends-before-diff-before-bad-lagged",
        raw_message(1, lagged=5),
        "MSG_ENDS_BEFORE_DIFF",
        ["D7", "D8"],
        ["CheckOrder"],
    ),
    (
        "order-data-before-lagged",
        raw_message(S, {b"a": []}, lagged=5, diff={}),
        "DATA_EMPTY_SET",
        ["D7", "D11"],
        ["CheckOrder"],
    ),
    (
        "order-lagged-before-diff",
        raw_message(S, lagged=5, diff=5),
        "LAGGED_NOT_LIST",
        ["D7", "D12"],
        ["CheckOrder"],
    ),
    (
        "order-diff-before-signature",
        raw_message(1, diff=5, sig=b""),
        "DIFF_NOT_DICT",
        ["D12", "D17"],
        ["CheckOrder"],
    ),
    (
        "order-lagged-shape-before-hash",
        raw_message(S, lagged=[[9, b"", {}, 1]], diff={}),
        "LAGGED_BAD_ENTRY",
        ["D7"],
        ["CheckOrder"],
    ),
    (
        "order-hash-before-seqno-too-high",
        raw_message(S, lagged=[_entry(S, b"")], diff={}),
        "LAGGED_BAD_HASH",
        ["D7"],
        ["CheckOrder"],
    ),
    (
        "order-seqno-too-high-before-diff",
        raw_message(S, lagged=[_entry(S, diff={b"a": 1})], diff={}),
        "LAGGED_SEQNO_TOO_HIGH",
        ["D7"],
        ["CheckOrder"],
    ),
    (
        "order-entry-diff-before-unsorted",
        raw_message(S, lagged=[_entry(9), _entry(8, diff={b"a": b"x"})], diff={}),
        "DIFF_BAD_MARKER",
        ["D7"],
        ["CheckOrder"],
    ),
    (
        "order-diff-keys-first-violation",
        raw_message(1, diff={b"a": [[2, 1], []], b"b": b"x"}),
        "DIFF_SET_UNSORTED",
        ["D12"],
        ["CheckOrder"],
    ),
    (
        "order-diff-keys-first-violation-2",
        raw_message(1, diff={b"a": b"x", b"b": 1}),
        "DIFF_BAD_MARKER",
        ["D12"],
        ["CheckOrder"],
    ),
    ("order-bt-before-structure", b"d1:!i01ee", "BT_LEADING_ZERO", ["D8", "D10"], ["CheckOrder"]),
]


def unknown_key_cases(suite: Suite) -> None:
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
            suite.add(
                f"unknown-key-{key.hex()}-{name}",
                f"unknown top-level key {key!r} holding {name}: kept verbatim in `extra` (D9)",
                "parse",
                {"msg": message.hex()},
                flags=["UnknownTopLevelKey"],
                rules=["D8", "D9"],
                expect="valid",
            )


def lag_filter_cases(suite: Suite) -> None:
    """Entries with seqno <= S-lag are dropped unread; the rest must be well-formed (D7)."""
    seqnos = list(range(1, S))
    garbage: list[Any] = [[S - 9], [S - 8, b"short"], [S - 7, 5, 5, 5]]
    for lag in range(1, 10):
        message = raw_message(S, lagged=[_entry(n) for n in seqnos], diff={})
        suite.add(
            f"lag-{lag}-keeps-window",
            f"seqno {S} with entries 1..{S - 1} under lag {lag}: keeps {S - lag + 1}..{S - 1}",
            "parse",
            {"msg": message.hex(), "lag": lag},
            flags=["LagWindow"],
            rules=["D7", "D16"],
            expect="valid",
        )
        too_old = [entry for entry in garbage if entry[0] <= S - lag]
        if too_old:
            message = raw_message(S, lagged=[*too_old, _entry(S - 1)], diff={})
            suite.add(
                f"lag-{lag}-drops-malformed-old-entries",
                f"malformed entries with seqno <= {S - lag} are dropped before being checked",
                "parse",
                {"msg": message.hex(), "lag": lag},
                flags=["LagWindow", "Stale"],
                rules=["D7", "D16"],
                expect="valid",
            )
        unsorted_old = [_entry(S - 9), _entry(S - 10), _entry(S - 1)]
        if lag <= 9:
            message = raw_message(S, lagged=unsorted_old, diff={})
            suite.add(
                f"lag-{lag}-ignores-order-of-dropped",
                "dropped entries out of order do not make the kept ones unsorted",
                "parse",
                {"msg": message.hex(), "lag": lag},
                flags=["LagWindow", "Ordering"],
                rules=["D7", "D16"],
                expect="valid",
            )
        boundary = raw_message(S, lagged=[_entry(S - lag, b"")], diff={})
        suite.add(
            f"lag-{lag}-boundary-entry-dropped",
            f"an entry at seqno S-lag = {S - lag} with a bad hash is outside the window",
            "parse",
            {"msg": boundary.hex(), "lag": lag},
            flags=["LagWindow", "Stale"],
            rules=["D7", "D16"],
            expect="valid",
        )
        inside = raw_message(S, lagged=[_entry(S - lag + 1, b"")], diff={})
        suite.add(
            f"lag-{lag}-first-kept-entry-checked",
            f"an entry at seqno S-lag+1 = {S - lag + 1} is kept, so its bad hash is refused",
            "parse",
            {"msg": inside.hex(), "lag": lag},
            flags=["LagWindow"],
            rules=["D7", "D16"],
            expect="LAGGED_BAD_HASH",
        )
    for lag in (0, -1, -5):
        suite.add(
            f"lag-{lag}-refused",
            f"lag {lag} is a usage error (D16; the deployed client asserts, X4)",
            "parse",
            {"msg": raw_message(S, diff={}).hex(), "lag": lag},
            flags=["BadLag"],
            rules=["D16"],
            expect="BAD_LAG",
        )
    for seqno in (-(2**63), -1, 0, 2**63 - 1):
        suite.add(
            f"seqno-{seqno}",
            f"seqno {seqno}: any int64 is a valid seqno (D8)",
            "parse",
            {"msg": raw_message(seqno, diff={}).hex()},
            flags=["EdgeInteger"],
            rules=["D8"],
            expect="valid",
        )


def build() -> Suite:
    suite = Suite(
        "message_parse",
        "Parsing config messages: every structural reason code (at least three cases each),"
        " the order in which checks report, unknown top-level keys (D9), lag filtering (D7).",
    )
    for name, message, reason, rules, flags in structure_cases() + ORDERING:
        suite.add(
            name,
            f"{name.replace('-', ' ')}: refused with {reason}",
            "parse",
            {"msg": message.hex()},
            flags=flags or ["Structure"],
            rules=[*rules, "X5"],
            expect=reason,
        )
    for name, message in [
        ("minimal-diff-only", b"d1:#i0e1:&de1:=dee"),
        ("minimal-with-lagged", b"d1:#i0e1:&de1:<le1:=dee"),
        ("unknown-key-reaches-diff-position", raw_message(1, extra={b">": 1})),
        ("signature-only-after-data", raw_message(1, sig=bytes(64))),
    ]:
        suite.add(
            name,
            f"{name.replace('-', ' ')}: valid (D8: a key at or after `=` is enough)",
            "parse",
            {"msg": message.hex()},
            flags=["Structure"],
            rules=["D8"],
            expect="valid",
        )
    unknown_key_cases(suite)
    lag_filter_cases(suite)
    return suite
