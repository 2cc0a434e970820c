"""Message parse (D7, D8, D9, D12, D16, D17, X3): every structural reason code, unknown
top-level keys, the order in which checks report, and the lag filtering of lagged entries."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from swarmconf.conformance import btcodec
from swarmconf.conformance.catalogue import Catalogue
from swarmconf.conformance.configmerge.suite import Suite
from swarmconf.conformance.configmerge.values import HASH_A, HASH_B, raw_message

S = 10  # the seqno of the messages below


def _entry(seqno: int, hash_: bytes = HASH_A, diff: Any = None) -> list[Any]:
    return [seqno, hash_, {} if diff is None else diff]


class Parsing:
    """The message_parse suite: every case parses one message."""

    def __init__(self) -> None:
        self.suite = Suite(
            "message_parse",
            "Parsing config messages: every structural reason code (at least three cases each),"
            " the order in which checks report, unknown top-level keys (D9), lag filtering (D7).",
        )

    def refused(
        self,
        name: str,
        message: bytes,
        reason: str,
        rules: list[str],
        flags: Sequence[str] = (),
    ) -> None:
        """A message refused with `reason` (X5: the deployed client words it otherwise)."""
        self.suite.add(
            name,
            f"{name.replace('-', ' ')}: refused with {reason}",
            "parse",
            {"msg": message.hex()},
            flags=list(flags) or ["Structure"],
            rules=[*rules, "X5"],
            expect=reason,
        )

    def parsed(
        self,
        name: str,
        comment: str,
        message: bytes,
        flags: list[str],
        rules: list[str],
        expect: str = "valid",
        lag: int | None = None,
    ) -> None:
        """A message parsed (under `lag` if given): valid, or refused with `expect`."""
        inputs: dict[str, Any] = {"msg": message.hex()}
        if lag is not None:
            inputs["lag"] = lag
        self.suite.add(name, comment, "parse", inputs, flags=flags, rules=rules, expect=expect)


case = Catalogue[Parsing]()

# One structural reason code per function, at least three messages each.


@case
def msg_not_dict(p: Parsing) -> None:
    p.refused("top-level-int", btcodec.encode(5), "MSG_NOT_DICT", ["D8"])
    p.refused("top-level-string", btcodec.encode(b"config"), "MSG_NOT_DICT", ["D8"])
    p.refused("top-level-list", btcodec.encode([1, {}]), "MSG_NOT_DICT", ["D8"])
    p.refused("top-level-empty-list", b"le", "MSG_NOT_DICT", ["D8"])


@case
def msg_version_break(p: Parsing) -> None:
    p.refused(
        "version-break-bang",
        btcodec.encode({b"!": 1, b"#": 1, b"&": {}, b"=": {}}),
        "MSG_VERSION_BREAK",
        ["D8"],
    )
    p.refused(
        "version-break-empty-key",
        btcodec.encode({b"": 2, b"#": 1, b"&": {}, b"=": {}}),
        "MSG_VERSION_BREAK",
        ["D8"],
    )
    p.refused("version-break-alone", btcodec.encode({b"\x01": b"v2"}), "MSG_VERSION_BREAK", ["D8"])
    p.refused(
        "version-break-quote", btcodec.encode({b'"': {}, b"&": {}}), "MSG_VERSION_BREAK", ["D8"]
    )


@case
def msg_missing_seqno(p: Parsing) -> None:
    p.refused("empty-dict", b"de", "MSG_MISSING_SEQNO", ["D8"])
    p.refused(
        "no-seqno-data-first", btcodec.encode({b"&": {}, b"=": {}}), "MSG_MISSING_SEQNO", ["D8"]
    )
    p.refused(
        "no-seqno-unknown-first",
        btcodec.encode({b"$": 1, b"&": {}, b"=": {}}),
        "MSG_MISSING_SEQNO",
        ["D8", "D9"],
    )
    p.refused("no-seqno-diff-only", btcodec.encode({b"=": {}}), "MSG_MISSING_SEQNO", ["D8"])


@case
def msg_bad_seqno(p: Parsing) -> None:
    p.refused("seqno-string", raw_message(b"10", diff={}), "MSG_BAD_SEQNO", ["D8"])
    p.refused("seqno-list", raw_message([10], diff={}), "MSG_BAD_SEQNO", ["D8"])
    p.refused("seqno-dict", raw_message({}, diff={}), "MSG_BAD_SEQNO", ["D8"])
    p.refused("seqno-empty-string", raw_message(b"", diff={}), "MSG_BAD_SEQNO", ["D8"])


@case
def msg_missing_data(p: Parsing) -> None:
    p.refused("no-data", btcodec.encode({b"#": 1, b"<": [], b"=": {}}), "MSG_MISSING_DATA", ["D8"])
    p.refused("no-data-seqno-only", btcodec.encode({b"#": 1}), "MSG_MISSING_DATA", ["D8"])
    p.refused(
        "no-data-signed",
        btcodec.encode({b"#": 1, b"=": {}, b"~": bytes(64)}),
        "MSG_MISSING_DATA",
        ["D8"],
    )


@case
def msg_bad_data(p: Parsing) -> None:
    p.refused("data-int", raw_message(1, 5, diff={}), "MSG_BAD_DATA", ["D8"])
    p.refused("data-string", raw_message(1, b"", diff={}), "MSG_BAD_DATA", ["D8"])
    p.refused("data-list", raw_message(1, [], diff={}), "MSG_BAD_DATA", ["D8"])


@case
def msg_key_after_signature(p: Parsing) -> None:
    p.refused(
        "key-after-signature",
        raw_message(1, diff={}, sig=bytes(64), extra={b"\x7f": 1}),
        "MSG_KEY_AFTER_SIGNATURE",
        ["D8", "D17"],
        ["Signature"],
    )
    p.refused(
        "key-after-signature-tilde-tilde",
        raw_message(1, diff={}, sig=bytes(64), extra={b"~~": 1}),
        "MSG_KEY_AFTER_SIGNATURE",
        ["D8", "D17"],
        ["Signature"],
    )
    p.refused(
        "key-after-tilde-unsigned",
        raw_message(1, diff={}, extra={b"\xff": 1}),
        "MSG_KEY_AFTER_SIGNATURE",
        ["D8"],
    )
    p.refused(
        "key-after-tilde-unsigned-long",
        raw_message(1, diff={}, extra={b"~\x00": b""}),
        "MSG_KEY_AFTER_SIGNATURE",
        ["D8"],
    )


@case
def msg_ends_before_diff(p: Parsing) -> None:
    p.refused("ends-before-diff-lagged", raw_message(1, lagged=[]), "MSG_ENDS_BEFORE_DIFF", ["D8"])
    p.refused("ends-before-diff-data", raw_message(1), "MSG_ENDS_BEFORE_DIFF", ["D8"])
    p.refused(
        "ends-before-diff-unknown",
        raw_message(1, extra={b"<<": 1}),
        "MSG_ENDS_BEFORE_DIFF",
        ["D8", "D9"],
    )
    p.refused(
        "ends-before-diff-dollar",
        raw_message(1, extra={b"$": b"x"}),
        "MSG_ENDS_BEFORE_DIFF",
        ["D8", "D9"],
    )


@case
def lagged_not_list(p: Parsing) -> None:
    p.refused("lagged-int", raw_message(S, lagged=5, diff={}), "LAGGED_NOT_LIST", ["D7"])
    p.refused("lagged-string", raw_message(S, lagged=b"", diff={}), "LAGGED_NOT_LIST", ["D7"])
    p.refused("lagged-dict", raw_message(S, lagged={}, diff={}), "LAGGED_NOT_LIST", ["D7"])


@case
def lagged_bad_entry(p: Parsing) -> None:
    p.refused("lagged-entry-int", raw_message(S, lagged=[9], diff={}), "LAGGED_BAD_ENTRY", ["D7"])
    p.refused(
        "lagged-entry-empty", raw_message(S, lagged=[[]], diff={}), "LAGGED_BAD_ENTRY", ["D7"]
    )
    p.refused(
        "lagged-entry-string-seqno",
        raw_message(S, lagged=[[b"9", HASH_A, {}]], diff={}),
        "LAGGED_BAD_ENTRY",
        ["D7"],
    )
    p.refused(
        "lagged-entry-seqno-only", raw_message(S, lagged=[[9]], diff={}), "LAGGED_BAD_ENTRY", ["D7"]
    )
    p.refused(
        "lagged-entry-two-items",
        raw_message(S, lagged=[[9, HASH_A]], diff={}),
        "LAGGED_BAD_ENTRY",
        ["D7"],
    )
    p.refused(
        "lagged-entry-four-items",
        raw_message(S, lagged=[[9, HASH_A, {}, {}]], diff={}),
        "LAGGED_BAD_ENTRY",
        ["D7"],
    )
    p.refused(
        "lagged-entry-int-hash",
        raw_message(S, lagged=[[9, 1, {}]], diff={}),
        "LAGGED_BAD_ENTRY",
        ["D7"],
    )
    p.refused(
        "lagged-entry-list-diff",
        raw_message(S, lagged=[[9, HASH_A, []]], diff={}),
        "LAGGED_BAD_ENTRY",
        ["D7"],
    )
    p.refused(
        "lagged-entry-dict", raw_message(S, lagged=[{b"a": 1}], diff={}), "LAGGED_BAD_ENTRY", ["D7"]
    )


@case
def lagged_bad_hash(p: Parsing) -> None:
    p.refused(
        "lagged-hash-31",
        raw_message(S, lagged=[_entry(9, HASH_A[:31])], diff={}),
        "LAGGED_BAD_HASH",
        ["D7"],
    )
    p.refused(
        "lagged-hash-33",
        raw_message(S, lagged=[_entry(9, HASH_A + b"!")], diff={}),
        "LAGGED_BAD_HASH",
        ["D7"],
    )
    p.refused(
        "lagged-hash-empty",
        raw_message(S, lagged=[_entry(9, b"")], diff={}),
        "LAGGED_BAD_HASH",
        ["D7"],
    )
    p.refused(
        "lagged-hash-hex-text",
        raw_message(S, lagged=[_entry(9, HASH_A.hex().encode())], diff={}),
        "LAGGED_BAD_HASH",
        ["D7"],
    )


@case
def lagged_seqno_too_high(p: Parsing) -> None:
    p.refused(
        "lagged-seqno-equal",
        raw_message(S, lagged=[_entry(S)], diff={}),
        "LAGGED_SEQNO_TOO_HIGH",
        ["D7"],
    )
    p.refused(
        "lagged-seqno-above",
        raw_message(S, lagged=[_entry(S + 1)], diff={}),
        "LAGGED_SEQNO_TOO_HIGH",
        ["D7"],
    )
    p.refused(
        "lagged-seqno-max",
        raw_message(S, lagged=[_entry(2**63 - 1)], diff={}),
        "LAGGED_SEQNO_TOO_HIGH",
        ["D7"],
    )
    p.refused(
        "lagged-seqno-equal-after-good",
        raw_message(S, lagged=[_entry(8), _entry(S)], diff={}),
        "LAGGED_SEQNO_TOO_HIGH",
        ["D7"],
    )


@case
def lagged_unsorted(p: Parsing) -> None:
    p.refused(
        "lagged-descending",
        raw_message(S, lagged=[_entry(9), _entry(8)], diff={}),
        "LAGGED_UNSORTED",
        ["D7"],
        ["Ordering"],
    )
    p.refused(
        "lagged-same-key-other-diff",
        raw_message(S, lagged=[_entry(8, diff={b"a": b""}), _entry(8, diff={b"b": b""})], diff={}),
        "LAGGED_UNSORTED",
        ["D7"],
        ["Ordering"],
    )
    p.refused(
        "lagged-same-seqno-hash-descending",
        raw_message(S, lagged=[_entry(9, HASH_B), _entry(9, HASH_A)], diff={}),
        "LAGGED_UNSORTED",
        ["D7"],
        ["Ordering"],
    )
    p.refused(
        "lagged-duplicate",
        raw_message(S, lagged=[_entry(9), _entry(9)], diff={}),
        "LAGGED_UNSORTED",
        ["D7"],
        ["Ordering"],
    )
    p.refused(
        "lagged-duplicate-seqno-hash-other-diff",
        raw_message(S, lagged=[_entry(9), _entry(9, diff={b"a": b""})], diff={}),
        "LAGGED_UNSORTED",
        ["D7"],
        ["Ordering"],
    )


@case
def lagged_entry_diff_checked(p: Parsing) -> None:
    p.refused(
        "lagged-diff-integer",
        raw_message(S, lagged=[_entry(9, diff={b"a": 1})], diff={}),
        "DIFF_INTEGER",
        ["D7", "D12"],
    )
    p.refused(
        "lagged-diff-bad-marker",
        raw_message(S, lagged=[_entry(9, diff={b"a": b"+"})], diff={}),
        "DIFF_BAD_MARKER",
        ["D7", "D12"],
    )


@case
def diff_not_dict(p: Parsing) -> None:
    p.refused("diff-int", raw_message(1, diff=1), "DIFF_NOT_DICT", ["D12"])
    p.refused("diff-string", raw_message(1, diff=b""), "DIFF_NOT_DICT", ["D12"])
    p.refused("diff-list", raw_message(1, diff=[[], []]), "DIFF_NOT_DICT", ["D12"])


@case
def diff_bad_marker(p: Parsing) -> None:
    p.refused("diff-marker-x", raw_message(1, diff={b"a": b"x"}), "DIFF_BAD_MARKER", ["D12"])
    p.refused(
        "diff-marker-double-dash", raw_message(1, diff={b"a": b"--"}), "DIFF_BAD_MARKER", ["D12"]
    )
    p.refused("diff-marker-plus", raw_message(1, diff={b"a": b"+"}), "DIFF_BAD_MARKER", ["D12"])
    p.refused(
        "diff-marker-nested", raw_message(1, diff={b"a": {b"b": b" "}}), "DIFF_BAD_MARKER", ["D12"]
    )


@case
def diff_integer(p: Parsing) -> None:
    p.refused("diff-integer", raw_message(1, diff={b"a": 0}), "DIFF_INTEGER", ["D12"])
    p.refused(
        "diff-integer-nested", raw_message(1, diff={b"a": {b"b": 1}}), "DIFF_INTEGER", ["D12"]
    )
    p.refused("diff-integer-negative", raw_message(1, diff={b"z": -1}), "DIFF_INTEGER", ["D12"])


@case
def diff_bad_set(p: Parsing) -> None:
    p.refused("diff-set-one-list", raw_message(1, diff={b"a": [[1]]}), "DIFF_BAD_SET", ["D12"])
    p.refused(
        "diff-set-three-lists", raw_message(1, diff={b"a": [[1], [2], []]}), "DIFF_BAD_SET", ["D12"]
    )
    p.refused("diff-set-scalars", raw_message(1, diff={b"a": [1, 2]}), "DIFF_BAD_SET", ["D12"])
    p.refused("diff-set-empty", raw_message(1, diff={b"a": []}), "DIFF_BAD_SET", ["D12"])
    p.refused(
        "diff-set-nested-list", raw_message(1, diff={b"a": [[[1]], []]}), "DIFF_BAD_SET", ["D12"]
    )
    p.refused(
        "diff-set-dict-element", raw_message(1, diff={b"a": [[], [{}]]}), "DIFF_BAD_SET", ["D12"]
    )


@case
def diff_set_unsorted(p: Parsing) -> None:
    p.refused(
        "diff-set-unsorted-added",
        raw_message(1, diff={b"a": [[2, 1], []]}),
        "DIFF_SET_UNSORTED",
        ["D12"],
        ["Ordering"],
    )
    p.refused(
        "diff-set-unsorted-removed",
        raw_message(1, diff={b"a": [[], [b"b", b"a"]]}),
        "DIFF_SET_UNSORTED",
        ["D12"],
        ["Ordering"],
    )
    p.refused(
        "diff-set-string-before-int",
        raw_message(1, diff={b"a": [[b"a", 1], []]}),
        "DIFF_SET_UNSORTED",
        ["D12"],
        ["Ordering"],
    )
    p.refused(
        "diff-set-duplicate",
        raw_message(1, diff={b"a": [[1, 1], []]}),
        "DIFF_SET_UNSORTED",
        ["D12"],
        ["Ordering"],
    )


@case
def sig_malformed(p: Parsing) -> None:
    p.refused(
        "sig-63-bytes",
        raw_message(1, diff={}, sig=bytes(63)),
        "SIG_MALFORMED",
        ["D17"],
        ["Signature"],
    )
    p.refused(
        "sig-65-bytes",
        raw_message(1, diff={}, sig=bytes(65)),
        "SIG_MALFORMED",
        ["D17"],
        ["Signature"],
    )
    p.refused("sig-int", raw_message(1, diff={}, sig=0), "SIG_MALFORMED", ["D17"], ["Signature"])
    p.refused(
        "sig-empty", raw_message(1, diff={}, sig=b""), "SIG_MALFORMED", ["D17"], ["Signature"]
    )


# Messages breaking two rules: the check made first reports (API contract, parse order).


@case
def order_of_message_checks(p: Parsing) -> None:
    p.refused(
        "order-version-break-before-bad-data",
        btcodec.encode({b"!": 1, b"#": 1, b"&": 5}),
        "MSG_VERSION_BREAK",
        ["D8"],
        ["CheckOrder"],
    )
    p.refused(
        "order-bad-seqno-before-missing-data",
        btcodec.encode({b"#": b"1", b"=": {}}),
        "MSG_BAD_SEQNO",
        ["D8"],
        ["CheckOrder"],
    )
    p.refused(
        "order-bad-data-before-key-after-tilde",
        raw_message(1, 5, extra={b"\x7f": 1}),
        "MSG_BAD_DATA",
        ["D8"],
        ["CheckOrder"],
    )
    p.refused(
        "order-key-after-tilde-before-data-set",
        raw_message(1, {b"a": []}, extra={b"\x7f": 1}),
        "MSG_KEY_AFTER_SIGNATURE",
        ["D8", "D11"],
        ["CheckOrder"],
    )
    p.refused(
        "order-ends-before-diff-before-bad-lagged",
        raw_message(1, lagged=5),
        "MSG_ENDS_BEFORE_DIFF",
        ["D7", "D8"],
        ["CheckOrder"],
    )
    p.refused(
        "order-data-before-lagged",
        raw_message(S, {b"a": []}, lagged=5, diff={}),
        "DATA_EMPTY_SET",
        ["D7", "D11"],
        ["CheckOrder"],
    )
    p.refused(
        "order-lagged-before-diff",
        raw_message(S, lagged=5, diff=5),
        "LAGGED_NOT_LIST",
        ["D7", "D12"],
        ["CheckOrder"],
    )
    p.refused(
        "order-diff-before-signature",
        raw_message(1, diff=5, sig=b""),
        "DIFF_NOT_DICT",
        ["D12", "D17"],
        ["CheckOrder"],
    )


@case
def order_of_lagged_and_diff_checks(p: Parsing) -> None:
    p.refused(
        "order-lagged-shape-before-hash",
        raw_message(S, lagged=[[9, b"", {}, 1]], diff={}),
        "LAGGED_BAD_ENTRY",
        ["D7"],
        ["CheckOrder"],
    )
    p.refused(
        "order-hash-before-seqno-too-high",
        raw_message(S, lagged=[_entry(S, b"")], diff={}),
        "LAGGED_BAD_HASH",
        ["D7"],
        ["CheckOrder"],
    )
    p.refused(
        "order-seqno-too-high-before-diff",
        raw_message(S, lagged=[_entry(S, diff={b"a": 1})], diff={}),
        "LAGGED_SEQNO_TOO_HIGH",
        ["D7"],
        ["CheckOrder"],
    )
    p.refused(
        "order-entry-diff-before-unsorted",
        raw_message(S, lagged=[_entry(9), _entry(8, diff={b"a": b"x"})], diff={}),
        "DIFF_BAD_MARKER",
        ["D7"],
        ["CheckOrder"],
    )
    p.refused(
        "order-diff-keys-first-violation",
        raw_message(1, diff={b"a": [[2, 1], []], b"b": b"x"}),
        "DIFF_SET_UNSORTED",
        ["D12"],
        ["CheckOrder"],
    )
    p.refused(
        "order-diff-keys-first-violation-2",
        raw_message(1, diff={b"a": b"x", b"b": 1}),
        "DIFF_BAD_MARKER",
        ["D12"],
        ["CheckOrder"],
    )


@case
def order_bt_before_structure(p: Parsing) -> None:
    p.refused(
        "order-bt-before-structure", b"d1:!i01ee", "BT_LEADING_ZERO", ["D8", "D10"], ["CheckOrder"]
    )


@case
def minimal_valid_messages(p: Parsing) -> None:
    for name, message in [
        ("minimal-diff-only", b"d1:#i0e1:&de1:=dee"),
        ("minimal-with-lagged", b"d1:#i0e1:&de1:<le1:=dee"),
        ("unknown-key-reaches-diff-position", raw_message(1, extra={b">": 1})),
        ("signature-only-after-data", raw_message(1, sig=bytes(64))),
    ]:
        comment = f"{name.replace('-', ' ')}: valid (D8: a key at or after `=` is enough)"
        p.parsed(name, comment, message, ["Structure"], ["D8"])


@case
def unknown_top_level_keys(p: Parsing) -> None:
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
            p.parsed(
                f"unknown-key-{key.hex()}-{name}",
                f"unknown top-level key {key!r} holding {name}: kept verbatim in `extra` (D9)",
                raw_message(1, {b"k": 1}, lagged=[], diff={}, extra={key: value}),
                ["UnknownTopLevelKey"],
                ["D8", "D9"],
            )


@case
def lag_filter(p: Parsing) -> None:
    """Entries with seqno <= S-lag are dropped unread; the rest must be well-formed (D7)."""
    rules = ["D7", "D16"]
    garbage: list[Any] = [[S - 9], [S - 8, b"short"], [S - 7, 5, 5, 5]]
    for lag in range(1, 10):
        p.parsed(
            f"lag-{lag}-keeps-window",
            f"seqno {S} with entries 1..{S - 1} under lag {lag}: keeps {S - lag + 1}..{S - 1}",
            raw_message(S, lagged=[_entry(n) for n in range(1, S)], diff={}),
            ["LagWindow"],
            rules,
            lag=lag,
        )
        too_old = [entry for entry in garbage if entry[0] <= S - lag]
        if too_old:
            p.parsed(
                f"lag-{lag}-drops-malformed-old-entries",
                f"malformed entries with seqno <= {S - lag} are dropped before being checked",
                raw_message(S, lagged=[*too_old, _entry(S - 1)], diff={}),
                ["LagWindow", "Stale"],
                rules,
                lag=lag,
            )
        p.parsed(
            f"lag-{lag}-ignores-order-of-dropped",
            "dropped entries out of order do not make the kept ones unsorted",
            raw_message(S, lagged=[_entry(S - 9), _entry(S - 10), _entry(S - 1)], diff={}),
            ["LagWindow", "Ordering"],
            rules,
            lag=lag,
        )
        p.parsed(
            f"lag-{lag}-boundary-entry-dropped",
            f"an entry at seqno S-lag = {S - lag} with a bad hash is outside the window",
            raw_message(S, lagged=[_entry(S - lag, b"")], diff={}),
            ["LagWindow", "Stale"],
            rules,
            lag=lag,
        )
        p.parsed(
            f"lag-{lag}-first-kept-entry-checked",
            f"an entry at seqno S-lag+1 = {S - lag + 1} is kept, so its bad hash is refused",
            raw_message(S, lagged=[_entry(S - lag + 1, b"")], diff={}),
            ["LagWindow"],
            rules,
            expect="LAGGED_BAD_HASH",
            lag=lag,
        )


@case
def bad_lag_refused(p: Parsing) -> None:
    for lag in (0, -1, -5):
        p.parsed(
            f"lag-{lag}-refused",
            f"lag {lag} is a usage error (D16; the deployed client asserts, X4)",
            raw_message(S, diff={}),
            ["BadLag"],
            ["D16"],
            expect="BAD_LAG",
            lag=lag,
        )


@case
def any_int64_seqno(p: Parsing) -> None:
    for seqno in (-(2**63), -1, 0, 2**63 - 1):
        p.parsed(
            f"seqno-{seqno}",
            f"seqno {seqno}: any int64 is a valid seqno (D8)",
            raw_message(seqno, diff={}),
            ["EdgeInteger"],
            ["D8"],
        )


def build() -> Suite:
    return case.fill(Parsing()).suite
