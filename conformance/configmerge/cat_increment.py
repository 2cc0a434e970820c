"""Increment (D13, D7, D9, D16, D17): seqno + 1, lagged entries kept within the window,
the old message's own diff appended, the new diff following the edits."""

from __future__ import annotations

import random

from swarmconf.conformance.configmerge.suite import Suite
from swarmconf.conformance.configmerge.values import (
    INT64_MAX,
    data_hex,
    edited,
    minimal,
    new_message,
    random_data,
    random_edits,
    raw_message,
)


def build() -> Suite:
    suite = Suite(
        "increment",
        "Non-conflicting updates (D13): increment a message, optionally replace its data,"
        " serialize. Chains under lags 1 to 7 show which lagged entries stay (D7).",
    )
    rng = random.Random("swarmconf increment v1")
    for lag in range(1, 8):
        for chain in range(40):
            data = random_data(rng)
            message = new_message(rng.randint(0, 30), data, lag=lag)
            steps = rng.randint(0, 8)
            for _ in range(steps):
                data = random_edits(rng, data, rng.randint(0, 2))
                message = edited(message, data, lag=lag)
            edit = rng.random() < 0.7
            target = random_edits(rng, data, rng.randint(1, 4)) if edit else None
            inputs = {"msg": message.hex(), "lag": lag}
            if target is not None:
                inputs["data"] = data_hex(target)
            suite.add(
                f"lag-{lag}-chain-{chain}",
                f"a chain of {steps} updates under lag {lag},"
                f" then an increment {'with edits' if edit else 'without change'}",
                "increment",
                inputs,
                flags=["Chain", "RandomData"],
                rules=["D7", "D13", "D16"] + (["D12"] if edit else []),
                expect="valid",
            )
    for name, message, target_data, reason, rules in [
        (
            "keeps-unknown-keys",
            raw_message(3, {b"a": 1}, lagged=[], diff={}, extra={b"$": 1, b"x": [2, 1]}),
            {b"a": 2},
            None,
            ["D9", "D13"],
        ),
        (
            "drops-unverified-signature",
            raw_message(3, lagged=[], diff={}, sig=bytes(64)),
            None,
            None,
            ["D13", "D17"],
        ),
        (
            "appends-own-diff",
            raw_message(3, {b"a": 1}, lagged=[], diff={b"a": b""}),
            None,
            None,
            ["D13"],
        ),
        ("seqno-overflow", minimal(INT64_MAX), None, "SEQNO_OVERFLOW", ["D8", "D13"]),
        ("negative-seqno", minimal(-1), {b"z": 1}, None, ["D8", "D13"]),
        ("invalid-message", b"d1:#i1e1:&d1:slee1:=dee", None, "DATA_EMPTY_SET", ["D11", "D13"]),
        ("writer-limit", minimal(1), {b"k" * 129: 1}, "KEY_TOO_LONG", ["D11", "D13"]),
        (
            "over-limit-kept-unchanged",
            minimal(1, {b"k" * 129: 1}),
            {b"k" * 129: 1, b"a": 1},
            None,
            ["D11", "D13"],
        ),
        (
            "over-limit-reassigned",
            minimal(1, {b"k" * 129: 1}),
            {b"k" * 129: 2},
            "KEY_TOO_LONG",
            ["D11", "D13"],
        ),
    ]:
        inputs = {"msg": message.hex()}
        if target_data is not None:
            inputs["data"] = data_hex(target_data)
        suite.add(
            f"increment-{name}",
            f"increment: {name.replace('-', ' ')}",
            "increment",
            inputs,
            flags=["EdgeInteger"] if "seqno" in name else ["IncrementRule"],
            rules=rules,
            expect=reason or "valid",
        )
    suite.add(
        "increment-bad-lag",
        "increment with lag 0: a usage error (D16)",
        "increment",
        {"msg": minimal().hex(), "lag": 0},
        flags=["BadLag"],
        rules=["D16"],
        expect="BAD_LAG",
    )
    return suite
