"""Increment (D13, D7, D9, D16, D17): seqno + 1, lagged entries kept within the window,
the old message's own diff appended, the new diff following the edits."""

from __future__ import annotations

import random
from typing import Any

from swarmconf.conformance.catalogue import Catalogue
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


class Incrementing:
    """The increment suite; the random chains draw from one generator, in order."""

    def __init__(self) -> None:
        self.suite = Suite(
            "increment",
            "Non-conflicting updates (D13): increment a message, optionally replace its data,"
            " serialize. Chains under lags 1 to 7 show which lagged entries stay (D7).",
        )
        self.rng = random.Random("swarmconf increment v1")

    def increment(
        self,
        name: str,
        message: bytes,
        data: dict[bytes, Any] | None,
        reason: str | None,
        rules: list[str],
        flags: tuple[str, ...] = ("IncrementRule",),
    ) -> None:
        """`message` incremented, its data replaced by `data` unless None."""
        inputs = {"msg": message.hex()}
        if data is not None:
            inputs["data"] = data_hex(data)
        self.suite.add(
            f"increment-{name}",
            f"increment: {name.replace('-', ' ')}",
            "increment",
            inputs,
            flags=list(flags),
            rules=rules,
            expect=reason or "valid",
        )


case = Catalogue[Incrementing]()


@case
def random_chains(i: Incrementing) -> None:
    """Chains of random updates under lags 1 to 7, then one more increment."""
    rng = i.rng
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
            i.suite.add(
                f"lag-{lag}-chain-{chain}",
                f"a chain of {steps} updates under lag {lag},"
                f" then an increment {'with edits' if edit else 'without change'}",
                "increment",
                inputs,
                flags=["Chain", "RandomData"],
                rules=["D7", "D13", "D16"] + (["D12"] if edit else []),
                expect="valid",
            )


@case
def what_an_increment_keeps(i: Incrementing) -> None:
    unknown = raw_message(3, {b"a": 1}, lagged=[], diff={}, extra={b"$": 1, b"x": [2, 1]})
    i.increment("keeps-unknown-keys", unknown, {b"a": 2}, None, ["D9", "D13"])
    signed = raw_message(3, lagged=[], diff={}, sig=bytes(64))
    i.increment("drops-unverified-signature", signed, None, None, ["D13", "D17"])
    own_diff = raw_message(3, {b"a": 1}, lagged=[], diff={b"a": b""})
    i.increment("appends-own-diff", own_diff, None, None, ["D13"])


@case
def seqno_edges(i: Incrementing) -> None:
    flags = ("EdgeInteger",)
    i.increment("seqno-overflow", minimal(INT64_MAX), None, "SEQNO_OVERFLOW", ["D8", "D13"], flags)
    i.increment("negative-seqno", minimal(-1), {b"z": 1}, None, ["D8", "D13"], flags)


@case
def invalid_message_and_writer_limits(i: Incrementing) -> None:
    rules = ["D11", "D13"]
    long_key = b"k" * 129
    i.increment("invalid-message", b"d1:#i1e1:&d1:slee1:=dee", None, "DATA_EMPTY_SET", rules)
    i.increment("writer-limit", minimal(1), {long_key: 1}, "KEY_TOO_LONG", rules)
    over = minimal(1, {long_key: 1})
    i.increment("over-limit-kept-unchanged", over, {long_key: 1, b"a": 1}, None, rules)
    i.increment("over-limit-reassigned", over, {long_key: 2}, "KEY_TOO_LONG", rules)


@case
def bad_lag(i: Incrementing) -> None:
    i.suite.add(
        "increment-bad-lag",
        "increment with lag 0: a usage error (D16)",
        "increment",
        {"msg": minimal().hex(), "lag": 0},
        flags=["BadLag"],
        rules=["D16"],
        expect="BAD_LAG",
    )


def build() -> Suite:
    return case.fill(Incrementing()).suite
