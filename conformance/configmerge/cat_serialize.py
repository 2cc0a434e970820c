"""Serialization and hashes (D1, D8, D9, D17): canonical bytes of new and re-serialized
messages, and message hashes over the exact bytes received."""

from __future__ import annotations

import random

from swarmconf.conformance.catalogue import Catalogue
from swarmconf.conformance.configmerge.suite import Suite
from swarmconf.conformance.configmerge.values import (
    HASH_A,
    data_hex,
    minimal,
    new_message,
    random_data,
    raw_message,
)
from swarmconf.spec.configmerge import examples


class Serializing:
    """The serialization suite; the random families draw from one generator, in order."""

    def __init__(self) -> None:
        self.suite = Suite(
            "serialization",
            "Serialization and hashes: `new` messages written canonically with `<` and `=` always"
            " present; parsed messages written back with unknown keys in place (D9) and unverified"
            " signatures dropped (D17); hashes are BLAKE2b-256 of the exact bytes (D1).",
        )
        self.rng = random.Random("swarmconf serialization v1")


case = Catalogue[Serializing]()


@case
def new_random_messages(s: Serializing) -> None:
    for index in range(400):
        data = random_data(s.rng)
        seqno = s.rng.choice([0, 1, 2, 117, 2**31, 2**63 - 1, -1, -(2**63)])
        s.suite.add(
            f"new-random-{index}",
            f"a new message with seqno {seqno} and random data: every value recorded as added",
            "new",
            {"seqno": seqno, "data": data_hex(data)},
            flags=["RandomData"],
            rules=["D8", "D12"],
            expect="valid",
        )


@case
def reserialize_handpicked(s: Serializing) -> None:
    unknown_keys = {b"$": 1, b"*": [3, 1], b">": {}, b"}": b""}
    for name, message, rules in [
        ("no-lagged-key", b"d1:#i0e1:&de1:=dee", ["D8"]),
        ("no-diff-key-but-signature", raw_message(3, sig=bytes(64)), ["D8", "D17"]),
        (
            "unknown-keys-everywhere",
            raw_message(4, {b"a": 1}, lagged=[], diff={}, extra=unknown_keys),
            ["D9"],
        ),
        (
            "unknown-key-wide-int",
            raw_message(5, lagged=[], diff={}, extra={b"x": 2**64 - 1}),
            ["D9"],
        ),
        (
            "unverified-signature-dropped",
            raw_message(6, lagged=[], diff={}, sig=bytes(64)),
            ["D17"],
        ),
        (
            "stale-lagged-dropped",
            raw_message(10, lagged=[[1, b"x", 0], [9, HASH_A, {b"a": b""}]], diff={b"a": b""}),
            ["D7"],
        ),
        ("example-m127", examples.m127(), ["D1"]),
    ]:
        s.suite.add(
            f"reserialize-{name}",
            f"parse and serialize again: {name.replace('-', ' ')}",
            "serialize",
            {"msg": message.hex()},
            flags=["Reserialize"] + (["UnknownTopLevelKey"] if "D9" in rules else []),
            rules=rules,
            expect="valid",
        )


@case
def reserialize_random(s: Serializing) -> None:
    for index in range(150):
        data = random_data(s.rng)
        message = new_message(s.rng.randint(0, 50), data)
        s.suite.add(
            f"reserialize-random-{index}",
            "a spec-made message parsed and serialized again: identical bytes",
            "serialize",
            {"msg": message.hex()},
            flags=["Reserialize", "RandomData"],
            rules=["D8"],
            expect="valid",
        )


@case
def hashes(s: Serializing) -> None:
    for name, message in [
        ("minimal", minimal()),
        ("minimal-no-lagged", b"d1:#i1e1:&de1:=dee"),
        ("same-data-other-seqno", minimal(2)),
        ("unknown-key", raw_message(1, lagged=[], diff={}, extra={b"x": 0})),
        ("signature-zeros", raw_message(1, lagged=[], diff={}, sig=bytes(64))),
        ("signature-ones", raw_message(1, lagged=[], diff={}, sig=b"\xff" * 64)),
        ("example-m118", examples.m118()),
        ("example-m124", examples.m124()),
        ("example-m126b", examples.m126b()),
    ]:
        s.suite.add(
            f"hash-{name}",
            f"hash of {name.replace('-', ' ')}: BLAKE2b-256 of the bytes as received (D1)",
            "hash",
            {"msg": message.hex()},
            flags=["Hash"],
            rules=["D1"],
            expect="valid",
        )


@case
def hash_large_messages(s: Serializing) -> None:
    for size in (65_537, 200_000):
        # One string value long enough that the whole message has exactly `size` bytes.
        shell = len(minimal(1, {b"big": b""}))
        length = size - shell - len(str(size)) + 1
        big = minimal(1, {b"big": b"x" * length})
        assert len(big) == size
        s.suite.add(
            f"hash-large-message-{size}",
            f"a valid {size}-byte message: a client with a configured input limit may refuse"
            " it with INPUT_TOO_LARGE, any other client hashes it",
            "hash",
            {"msg": big.hex()},
            flags=["LargeInput"],
            rules=["D1", "D11"],
            acceptable=True,
            expect="valid",
        )


@case
def hash_invalid_message(s: Serializing) -> None:
    s.suite.add(
        "hash-invalid-message",
        "an invalid message has no hash: it is refused",
        "hash",
        {"msg": b"d1:#i1ee".hex()},
        flags=["Hash"],
        rules=["D1", "D8"],
        expect="MSG_MISSING_DATA",
    )


def build() -> Suite:
    return case.fill(Serializing()).suite
