"""Diffs (D12): what editing one data dict into another records, handpicked and random."""

from __future__ import annotations

import random
from typing import Any

from swarmconf.conformance.builder import SuiteBuilder
from swarmconf.conformance.configmerge.values import data_hex, random_data, random_edits
from swarmconf.conformance.configmerge.vocabulary import new_suite

SCALARS: list[tuple[str, Any]] = [("int", 1), ("string", b"v"), ("zero", 0), ("empty", b"")]
KINDS: list[tuple[str, Any]] = [
    ("absent", None),
    ("int", 5),
    ("string", b"s"),
    ("set", {1, b"x"}),
    ("dict", {b"n": 1, b"m": {b"o": b"p"}}),
]

HANDPICKED: list[tuple[str, Any, Any]] = [
    ("no-change", {b"a": 1, b"s": {1}}, {b"a": 1, b"s": {1}}),
    ("same-value-assigned", {b"a": b"x"}, {b"a": b"x"}),
    ("int-to-equal-looking-string", {b"a": 1}, {b"a": b"1"}),
    ("set-add-and-remove", {b"s": {1, 2, b"a"}}, {b"s": {2, 3, b"b"}}),
    ("set-emptied", {b"s": {1, 2}}, {}),
    ("set-created", {}, {b"s": {b"z", -1}}),
    ("nested-removal-of-dict", {b"d": {b"e": {b"f": 1, b"s": {1}}, b"g": b""}}, {}),
    ("nested-removal-keeps-sibling", {b"d": {b"e": {b"f": 1}, b"g": 2}}, {b"d": {b"g": 2}}),
    ("nested-assignment-deep", {b"d": {b"e": {b"f": 1}}}, {b"d": {b"e": {b"f": 2}}}),
    ("dict-to-set", {b"d": {b"a": 1}}, {b"d": {1}}),
    ("set-to-dict", {b"d": {1}}, {b"d": {b"a": 1}}),
    ("scalar-to-dict", {b"d": 1}, {b"d": {b"a": 1}}),
    ("dict-to-scalar", {b"d": {b"a": 1}}, {b"d": 1}),
    ("set-to-scalar", {b"d": {1}}, {b"d": 1}),
    ("scalar-to-set", {b"d": 1}, {b"d": {1}}),
    ("nested-type-change", {b"d": {b"e": {b"f": 1}}}, {b"d": {b"e": {1, 2}}}),
    ("many-keys", {bytes([k]): k for k in range(40)}, {bytes([k]): -k for k in range(40)}),
]


def build() -> SuiteBuilder:
    suite = new_suite(
        "diffs",
        "Diffs (D12): scalars assigned or removed, set additions and removals, nested dicts,"
        " removed dicts and sets recorded element by element, kind changes recorded as the"
        " addition of the new value only, unchanged values recorded as nothing.",
    )
    for name, old, new in HANDPICKED:
        flags = ["TypeChange"] if "-to-" in name else ["DiffShape"]
        suite.case(
            f"diff-{name}",
            f"diff for {name.replace('-', ' ')}",
            op="diff",
            input={"old": data_hex(old), "new": data_hex(new)},
            flags=flags,
            rules=["D12"],
            expect="valid",
        )
    for old_name, old in KINDS:
        for new_name, new in KINDS:
            old_data = {} if old is None else {b"k": old}
            new_data = {} if new is None else {b"k": new}
            for depth in (0, 1):
                if depth:
                    old_data = {b"outer": {**old_data, b"keep": 1}}
                    new_data = {b"outer": {**new_data, b"keep": 1}}
                suite.case(
                    f"kind-{old_name}-to-{new_name}-depth-{depth}",
                    f"a value changing from {old_name} to {new_name} at depth {depth}",
                    op="diff",
                    input={"old": data_hex(old_data), "new": data_hex(new_data)},
                    flags=["TypeChange"],
                    rules=["D12"],
                    expect="valid",
                )
    rng = random.Random("swarmconf diffs v1")
    for index in range(2500):
        old = random_data(rng)
        new = random_edits(rng, old, rng.randint(1, 6))
        suite.case(
            f"random-{index}",
            "random data and random edits of it",
            op="diff",
            input={"old": data_hex(old), "new": data_hex(new)},
            flags=["RandomData"],
            rules=["D12"],
            expect="valid",
        )
    return suite
