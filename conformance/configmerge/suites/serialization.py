"""Serialization and hashes (D1, D8, D9, D17): canonical bytes of new and re-serialized
messages, and message hashes over the exact bytes received.

The two random families (new messages, then re-serialized ones) draw from one generator, in
that order.
"""

from __future__ import annotations

import random

from swarmconf.conformance.builder import VALID, SuiteBuilder
from swarmconf.conformance.configmerge.values import (
    HASH_A,
    data_hex,
    minimal,
    new_message,
    random_data,
    raw_message,
)
from swarmconf.conformance.configmerge.vocabulary import new_suite
from swarmconf.spec.configmerge import examples


def new_random_messages(suite: SuiteBuilder, rng: random.Random) -> None:
    for index in range(400):
        data = random_data(rng)
        seqno = rng.choice([0, 1, 2, 117, 2**31, 2**63 - 1, -1, -(2**63)])
        suite.case(
            f"new-random-{index}",
            f"a new message with seqno {seqno} and random data: every value recorded as added",
            op="new",
            input={"seqno": seqno, "data": data_hex(data)},
            expect=VALID,
            flags=["RandomData"],
            rules=["D8", "D12"],
        )


def reserialize_handpicked(suite: SuiteBuilder) -> None:
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
        suite.case(
            f"reserialize-{name}",
            f"parse and serialize again: {name.replace('-', ' ')}",
            op="serialize",
            input={"msg": message.hex()},
            expect=VALID,
            flags=["Reserialize"] + (["UnknownTopLevelKey"] if "D9" in rules else []),
            rules=rules,
        )


def reserialize_random(suite: SuiteBuilder, rng: random.Random) -> None:
    for index in range(150):
        data = random_data(rng)
        message = new_message(rng.randint(0, 50), data)
        suite.case(
            f"reserialize-random-{index}",
            "a spec-made message parsed and serialized again: identical bytes",
            op="serialize",
            input={"msg": message.hex()},
            expect=VALID,
            flags=["Reserialize", "RandomData"],
            rules=["D8"],
        )


def message_of_size(size: int) -> bytes:
    """A valid message of exactly `size` bytes: one string value long enough."""
    shell = len(minimal(1, {b"big": b""}))
    message = minimal(1, {b"big": b"x" * (size - shell - len(str(size)) + 1)})
    assert len(message) == size
    return message


def hashes(suite: SuiteBuilder) -> None:
    """BLAKE2b-256 of the bytes as received (D1), of valid messages only."""
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
        suite.case(
            f"hash-{name}",
            f"hash of {name.replace('-', ' ')}: BLAKE2b-256 of the bytes as received (D1)",
            op="hash",
            input={"msg": message.hex()},
            expect=VALID,
            flags=["Hash"],
            rules=["D1"],
        )
    for size in (65_537, 200_000):
        suite.case(
            f"hash-large-message-{size}",
            f"a valid {size}-byte message: a client with a configured input limit may refuse"
            " it with INPUT_TOO_LARGE, any other client hashes it",
            op="hash",
            input={"msg": message_of_size(size).hex()},
            expect=VALID,
            flags=["LargeInput"],
            rules=["D1", "D11"],
            acceptable=True,
        )
    suite.case(
        "hash-invalid-message",
        "an invalid message has no hash: it is refused",
        op="hash",
        input={"msg": b"d1:#i1ee".hex()},
        expect="MSG_MISSING_DATA",
        flags=["Hash"],
        rules=["D1", "D8"],
    )


def build() -> SuiteBuilder:
    suite = new_suite(
        "serialization",
        "Serialization and hashes: `new` messages written canonically with `<` and `=` always"
        " present; parsed messages written back with unknown keys in place (D9) and unverified"
        " signatures dropped (D17); hashes are BLAKE2b-256 of the exact bytes (D1).",
    )
    rng = random.Random("swarmconf serialization v1")
    new_random_messages(suite, rng)
    reserialize_handpicked(suite)
    reserialize_random(suite, rng)
    hashes(suite)
    return suite
