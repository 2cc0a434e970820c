"""Data validation (D11): sets and dicts in `&` as parsed, and the writer's limits on `new`."""

from __future__ import annotations

import random
from typing import Any

from swarmconf.conformance.builder import VALID, SuiteBuilder
from swarmconf.conformance.configmerge.values import (
    INT64_MAX,
    INT64_MIN,
    data_hex,
    minimal,
    random_data,
)
from swarmconf.conformance.configmerge.vocabulary import new_suite

# (name, data as bt values, what parsing it shows)
PARSED: list[tuple[str, Any, str]] = [
    ("set-ints", {b"s": [-5, 0, 7]}, VALID),
    ("set-strings", {b"s": [b"", b"a", b"b"]}, VALID),
    ("set-mixed", {b"s": [-1, 2, b"", b"\xff"]}, VALID),
    ("set-int-extremes", {b"s": [INT64_MIN, INT64_MAX]}, VALID),
    ("set-single", {b"s": [b"only"]}, VALID),
    ("set-bytewise-not-numeric", {b"s": [b"10", b"9"]}, VALID),
    ("set-uppercase-first", {b"s": [b"B", b"a"]}, VALID),
    ("nested-dicts", {b"d": {b"e": {b"f": {b"g": 1}}}}, VALID),
    ("empty-top-level-data", {}, VALID),
    ("set-unsorted-ints", {b"s": [2, 1]}, "DATA_SET_UNSORTED"),
    ("set-unsorted-strings", {b"s": [b"b", b"a"]}, "DATA_SET_UNSORTED"),
    ("set-string-before-int", {b"s": [b"a", 1]}, "DATA_SET_UNSORTED"),
    ("set-duplicate-int", {b"s": [1, 1]}, "DATA_SET_UNSORTED"),
    ("set-duplicate-string", {b"s": [b"x", b"x"]}, "DATA_SET_UNSORTED"),
    ("set-negative-after-positive", {b"s": [1, -1]}, "DATA_SET_UNSORTED"),
    ("set-numeric-order-of-strings", {b"s": [b"9", b"10"]}, "DATA_SET_UNSORTED"),
    ("set-empty", {b"s": []}, "DATA_EMPTY_SET"),
    ("set-empty-nested", {b"d": {b"s": []}}, "DATA_EMPTY_SET"),
    ("set-empty-deep", {b"d": {b"e": {b"s": []}}}, "DATA_EMPTY_SET"),
    ("set-holding-list", {b"s": [[1]]}, "DATA_SET_NOT_SCALAR"),
    ("set-holding-dict", {b"s": [{}]}, "DATA_SET_NOT_SCALAR"),
    ("set-holding-empty-list", {b"s": [1, []]}, "DATA_SET_NOT_SCALAR"),
    ("set-holding-dict-after-string", {b"s": [b"a", {b"k": 1}]}, "DATA_SET_NOT_SCALAR"),
    ("dict-empty", {b"d": {}}, "DATA_EMPTY_DICT"),
    ("dict-empty-nested", {b"d": {b"e": {}}}, "DATA_EMPTY_DICT"),
    ("dict-empty-beside-value", {b"a": 1, b"d": {}}, "DATA_EMPTY_DICT"),
    ("depth-first-key-order", {b"a": {b"x": []}, b"b": [2, 1]}, "DATA_EMPTY_SET"),
    ("depth-first-key-order-2", {b"a": [2, 1], b"b": {b"x": []}}, "DATA_SET_UNSORTED"),
    ("depth-first-key-order-3", {b"a": {b"y": {}}, b"b": [[]]}, "DATA_EMPTY_DICT"),
    ("key-over-limit", {b"k" * 129: 1}, VALID),
    ("string-over-limit", {b"s": b"v" * 4097}, VALID),
    ("set-string-over-limit", {b"s": [b"v" * 5000]}, VALID),
    ("key-at-limit", {b"k" * 128: b"v" * 4096}, VALID),
    ("binary-keys", {b"\x00": 1, b"\x00\x00": 2, b"\xff": 3}, VALID),
    ("empty-key", {b"": b""}, VALID),
]

# (name, data given to `new`, what writing it shows)
WRITTEN: list[tuple[str, Any, str]] = [
    ("key-128-bytes", {b"k" * 128: 1}, VALID),
    ("key-129-bytes", {b"k" * 129: 1}, "KEY_TOO_LONG"),
    ("nested-key-129-bytes", {b"d": {b"k" * 129: 1}}, "KEY_TOO_LONG"),
    ("set-key-129-bytes", {b"k" * 129: [1]}, "KEY_TOO_LONG"),
    ("dict-key-1000-bytes", {b"k" * 1000: {b"a": 1}}, "KEY_TOO_LONG"),
    ("string-4096-bytes", {b"s": b"v" * 4096}, VALID),
    ("string-4097-bytes", {b"s": b"v" * 4097}, "STRING_TOO_LONG"),
    ("nested-string-4097-bytes", {b"d": {b"s": b"v" * 4097}}, "STRING_TOO_LONG"),
    ("set-element-4097-bytes", {b"s": [1, b"v" * 4097]}, "STRING_TOO_LONG"),
    ("set-element-4096-bytes", {b"s": [b"v" * 4096]}, VALID),
    ("int-max", {b"i": INT64_MAX}, VALID),
    ("int-min", {b"i": INT64_MIN}, VALID),
    ("int-over-max", {b"i": INT64_MAX + 1}, "INT_OUT_OF_RANGE"),
    ("int-under-min", {b"i": INT64_MIN - 1}, "INT_OUT_OF_RANGE"),
    ("set-int-over-max", {b"s": [2**64]}, "INT_OUT_OF_RANGE"),
    ("nested-int-over-max", {b"d": {b"i": 2**70}}, "INT_OUT_OF_RANGE"),
    ("set-holding-dict", {b"s": [{b"a": 1}]}, "BAD_VALUE_TYPE"),
    ("set-holding-list", {b"s": [[1]]}, "BAD_VALUE_TYPE"),
    ("nested-set-holding-dict", {b"d": {b"s": [1, {b"a": 1}]}}, "BAD_VALUE_TYPE"),
    ("empty-set-pruned", {b"s": [], b"a": 1}, VALID),
    ("empty-dict-pruned", {b"d": {}, b"a": 1}, VALID),
    ("nested-empty-pruned", {b"d": {b"e": {b"s": []}}}, VALID),
]


def build() -> SuiteBuilder:
    suite = new_suite(
        "data_validation",
        "Application data `&` (D11): set order, scalars only, no empty sets or nested dicts;"
        " over-limit keys and strings are accepted on parse but refused to writers.",
    )
    for name, data, expect in PARSED:
        flags = ["DataRules"]
        if "limit" in name:
            flags = ["WriterLimit"]
        if "unsorted" in name or "order" in name or "duplicate" in name:
            flags.append("Ordering")
        suite.case(
            f"parse-{name}",
            f"parse data {name.replace('-', ' ')}"
            + (": accepted" if expect == VALID else f": refused with {expect}"),
            op="parse",
            input={"msg": minimal(1, data).hex()},
            expect=expect,
            flags=flags,
            rules=["D11"],
        )
    for name, data, expect in WRITTEN:
        suite.case(
            f"write-{name}",
            f"a new message whose data has {name.replace('-', ' ')}"
            + (": written" if expect == VALID else f": refused with {expect}"),
            op="new",
            input={"seqno": 1, "data": data_hex(data)},
            expect=expect,
            flags=["WriterLimit"] if expect == VALID or "LONG" in expect else ["WriterType"],
            rules=["D11"] if "prune" not in name else ["D11", "D12"],
        )
    rng = random.Random("swarmconf data_validation v1")
    for index in range(300):
        data = random_data(rng)
        suite.case(
            f"random-data-{index}",
            "random valid data: parsed and described canonically",
            op="parse",
            input={"msg": minimal(rng.randint(-5, 1000), data).hex()},
            expect=VALID,
            flags=["RandomData"],
            rules=["D11"],
        )
    for name, request, expect, flags, rules in (
        ("lag-0", {"seqno": 1, "lag": 0}, "BAD_LAG", ["BadLag"], ["D16"]),
        ("lag-negative", {"seqno": 1, "lag": -1}, "BAD_LAG", ["BadLag"], ["D16"]),
        ("seqno-2^63", {"seqno": 2**63}, "INT_OUT_OF_RANGE", ["EdgeInteger"], ["D8"]),
        ("seqno-below-int64", {"seqno": -(2**63) - 1}, "INT_OUT_OF_RANGE", ["EdgeInteger"], ["D8"]),
    ):
        suite.case(
            f"new-{name.replace('^', '-')}",
            f"a new message with {name.replace('-', ' ')}: refused with {expect}",
            op="new",
            input={**request, "data": data_hex({})},
            expect=expect,
            flags=flags,
            rules=rules,
        )
    return suite
