"""Increment (D13, D7, D9, D16, D17): seqno + 1, lagged entries kept within the window,
the old message's own diff appended, the new diff following the edits."""

from __future__ import annotations

import random

from swarmconf.conformance.builder import VALID, SuiteBuilder
from swarmconf.conformance.catalogue import Catalogue
from swarmconf.conformance.configmerge.values import (
    INT64_MAX,
    Data,
    data_hex,
    edited,
    minimal,
    new_message,
    random_data,
    random_edits,
    raw_message,
)
from swarmconf.conformance.configmerge.vocabulary import new_suite
from swarmconf.conformance.vectors import Json

LONG_KEY = b"k" * 129
"""A key one byte over what a writer may write."""
OVER_LIMIT = minimal(1, {LONG_KEY: 1})
"""A valid message whose data holds `LONG_KEY`."""
UNKNOWN_KEYS = raw_message(3, {b"a": 1}, lagged=[], diff={}, extra={b"$": 1, b"x": [2, 1]})
SIGNED = raw_message(3, lagged=[], diff={}, sig=bytes(64))
OWN_DIFF = raw_message(3, {b"a": 1}, lagged=[], diff={b"a": b""})
EMPTY_SET = b"d1:#i1e1:&d1:slee1:=dee"
"""An invalid message: a set in its data is empty."""

# (name, message, the data it is given (None: kept), what the increment shows, flags, rules)
HANDPICKED: list[tuple[str, bytes, Data | None, str, list[str], list[str]]] = [
    ("keeps-unknown-keys", UNKNOWN_KEYS, {b"a": 2}, VALID, ["IncrementRule"], ["D9", "D13"]),
    ("drops-unverified-signature", SIGNED, None, VALID, ["IncrementRule"], ["D13", "D17"]),
    ("appends-own-diff", OWN_DIFF, None, VALID, ["IncrementRule"], ["D13"]),
    ("seqno-overflow", minimal(INT64_MAX), None, "SEQNO_OVERFLOW", ["EdgeInteger"], ["D8", "D13"]),
    ("negative-seqno", minimal(-1), {b"z": 1}, VALID, ["EdgeInteger"], ["D8", "D13"]),
    ("invalid-message", EMPTY_SET, None, "DATA_EMPTY_SET", ["IncrementRule"], ["D11", "D13"]),
    ("writer-limit", minimal(1), {LONG_KEY: 1}, "KEY_TOO_LONG", ["IncrementRule"], ["D11", "D13"]),
    (
        "over-limit-kept-unchanged",
        OVER_LIMIT,
        {LONG_KEY: 1, b"a": 1},
        VALID,
        ["IncrementRule"],
        ["D11", "D13"],
    ),
    (
        "over-limit-reassigned",
        OVER_LIMIT,
        {LONG_KEY: 2},
        "KEY_TOO_LONG",
        ["IncrementRule"],
        ["D11", "D13"],
    ),
]


def increment_input(message: bytes, data: Data | None) -> Json:
    """The input: increment `message`, its data replaced by `data` unless None."""
    return {"msg": message.hex(), **({} if data is None else {"data": data_hex(data)})}


case = Catalogue[SuiteBuilder]()


@case
def random_chains(suite: SuiteBuilder) -> None:
    """Chains of random updates under lags 1 to 7, then one more increment."""
    rng = random.Random("swarmconf increment v1")
    for lag in range(1, 8):
        chains = suite.group("increment", lag=lag)
        for chain in range(40):
            data = random_data(rng)
            message = new_message(rng.randint(0, 30), data, lag=lag)
            steps = rng.randint(0, 8)
            for _ in range(steps):
                data = random_edits(rng, data, rng.randint(0, 2))
                message = edited(message, data, lag=lag)
            edit = rng.random() < 0.7
            target = random_edits(rng, data, rng.randint(1, 4)) if edit else None
            chains.case(
                f"lag-{lag}-chain-{chain}",
                f"a chain of {steps} updates under lag {lag},"
                f" then an increment {'with edits' if edit else 'without change'}",
                input=increment_input(message, target),
                expect=VALID,
                flags=["Chain", "RandomData"],
                rules=["D7", "D13", "D16"] + (["D12"] if edit else []),
            )


@case
def handpicked(suite: SuiteBuilder) -> None:
    for name, message, data, expect, flags, rules in HANDPICKED:
        suite.case(
            f"increment-{name}",
            f"increment: {name.replace('-', ' ')}",
            op="increment",
            input=increment_input(message, data),
            expect=expect,
            flags=flags,
            rules=rules,
        )


@case
def bad_lag(suite: SuiteBuilder) -> None:
    suite.case(
        "increment-bad-lag",
        "increment with lag 0: a usage error (D16)",
        op="increment",
        input={"msg": minimal().hex(), "lag": 0},
        expect="BAD_LAG",
        flags=["BadLag"],
        rules=["D16"],
    )


def build() -> SuiteBuilder:
    suite = new_suite(
        "increment",
        "Non-conflicting updates (D13): increment a message, optionally replace its data,"
        " serialize. Chains under lags 1 to 7 show which lagged entries stay (D7).",
    )
    return case.fill(suite)
