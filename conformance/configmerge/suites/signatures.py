"""Signatures (D17): signing, verification, what serialization keeps, merges that verify.

Alice's and bob's keys are derived from their names. Random messages are signed, then verified
under the right key, a wrong one and with a bit flipped; handpicked cases show what a signature,
a key or an operation refuses or keeps; merges of signed forks close the suite. The random
messages and the forks draw from one generator, in that order.
"""

from __future__ import annotations

import hashlib
import random

import nacl.signing

from swarmconf.conformance.builder import VALID, Answer, SuiteBuilder
from swarmconf.conformance.configmerge.values import (
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
from swarmconf.spec import configmerge as spec


def seed(label: str) -> bytes:
    return hashlib.sha256(b"swarmconf vectors v1 signing " + label.encode()).digest()


def public(seed_bytes: bytes) -> bytes:
    return bytes(nacl.signing.SigningKey(seed_bytes).verify_key)


ALICE, BOB = seed("alice"), seed("bob")
ALICE_PUB, BOB_PUB = public(ALICE), public(BOB)


def words(name: str) -> str:
    """A case's name as its comment."""
    return name.replace("-", " ")


def signed_message(answer: Answer) -> bytes:
    """The message a valid `sign` answer gives."""
    return bytes.fromhex(answer.field("msg"))


def flipped(blob: bytes, position: int, mask: int) -> bytes:
    """`blob` with the bits of `mask` flipped in its byte at `position`."""
    changed = bytearray(blob)
    changed[position] ^= mask
    return bytes(changed)


def body_refusal(tampered: bytes) -> str:
    """What verifying a signed message with its body tampered with shows: the parser's refusal
    where the change breaks the message (D10), else the signature's."""
    try:
        spec.parse(tampered)
    except spec.ConfigError as error:
        return error.reason.value
    return "SIG_INVALID"


def random_signatures(suite: SuiteBuilder, rng: random.Random) -> None:
    """Each random message signed (by a seed, or a seed and its public key), then verified under
    its signer's key and another, and with a bit flipped in its body or its signature."""
    for index in range(120):
        message = new_message(rng.randint(1, 99), random_data(rng))
        signer = rng.choice([ALICE, BOB, ALICE + ALICE_PUB])
        signed = signed_message(
            suite.case(
                f"sign-random-{index}",
                "sign a random message (seed or seed+public key)",
                op="sign",
                input={"msg": message.hex(), "sign_key": signer.hex()},
                expect=VALID,
                flags=["Signature", "RandomData"],
                rules=["D17"],
            )
        )
        right, wrong = (ALICE_PUB, BOB_PUB) if signer[:32] == ALICE else (BOB_PUB, ALICE_PUB)
        position = rng.randrange(len(signed) - 70)
        body = flipped(signed, position, 0x01)
        signature = flipped(signed, len(signed) - 2 - rng.randrange(64), 0x80)
        checks: list[tuple[str, str, bytes, bytes, list[str], list[str], str]] = [
            (
                "verify-random",
                "verify a signed message under its signer's key",
                signed,
                right,
                [],
                ["D17"],
                VALID,
            ),
            (
                "verify-wrong-key",
                "verify a signed message under another key",
                signed,
                wrong,
                ["WrongKey"],
                ["D17"],
                "SIG_INVALID",
            ),
            (
                "verify-tampered",
                f"a signed message with bit 0 of byte {position} flipped",
                body,
                right,
                ["Tampered"],
                ["D10", "D17"],
                body_refusal(body),
            ),
            (
                "verify-tampered-signature",
                "a signed message with one signature bit flipped",
                signature,
                right,
                ["Tampered"],
                ["D17"],
                "SIG_INVALID",
            ),
        ]
        for name, comment, blob, key, flags, rules, expect in checks:
            suite.case(
                f"{name}-{index}",
                comment,
                op="verify",
                input={"msg": blob.hex(), "verify_key": key.hex()},
                expect=expect,
                flags=["Signature", *flags],
                rules=rules,
            )


def sign_minimal(suite: SuiteBuilder) -> bytes:
    """The minimal message signed by alice, which the handpicked cases work on."""
    return signed_message(
        suite.case(
            "sign-minimal",
            "sign the minimal message",
            op="sign",
            input={"msg": minimal(5).hex(), "sign_key": ALICE.hex()},
            expect=VALID,
            flags=["Signature"],
            rules=["D17"],
        )
    )


def verifications(suite: SuiteBuilder, signed: bytes) -> None:
    """Verification of messages without a signature, with a bad or moved one, or under a key
    of the wrong size; `signed` is the minimal message signed by alice."""
    unsigned_extra = raw_message(5, lagged=[], diff={}, extra={b"x": 1})
    zero = raw_message(5, lagged=[], diff={}, sig=bytes(64))
    moved = raw_message(6, lagged=[], diff={}, sig=signed[-65:-1])
    malformed = raw_message(5, lagged=[], diff={}, sig=bytes(63))
    cases: list[tuple[str, bytes, bytes, list[str], str]] = [
        ("verify-unsigned", minimal(5), ALICE_PUB, ["Signature"], "SIG_MISSING"),
        (
            "verify-unsigned-extra",
            unsigned_extra,
            ALICE_PUB,
            ["Signature", "UnknownTopLevelKey"],
            "SIG_MISSING",
        ),
        (
            "verify-unsigned-merged-signer-key",
            minimal(6, {b"a": 1}),
            BOB_PUB,
            ["Signature"],
            "SIG_MISSING",
        ),
        ("verify-zero-signature", zero, ALICE_PUB, ["Signature"], "SIG_INVALID"),
        ("verify-signature-moved", moved, ALICE_PUB, ["Signature", "Tampered"], "SIG_INVALID"),
        ("verify-malformed-signature", malformed, ALICE_PUB, ["Signature"], "SIG_MALFORMED"),
        ("verify-key-31-bytes", signed, ALICE_PUB[:31], ["BadKey"], "BAD_KEY"),
        ("verify-key-64-bytes", signed, ALICE + ALICE_PUB, ["BadKey"], "BAD_KEY"),
        ("verify-key-empty", signed, b"", ["BadKey"], "BAD_KEY"),
    ]
    for name, message, key, flags, expect in cases:
        suite.case(
            name,
            words(name),
            op="verify",
            input={"msg": message.hex(), "verify_key": key.hex()},
            expect=expect,
            flags=flags,
            rules=["D9", "D17"] if "UnknownTopLevelKey" in flags else ["D17"],
        )
    suite.case(
        "verify-key-31-bytes-before-the-message",
        "a 31-byte verification key and a message that is no dict: the key is checked first",
        op="verify",
        input={"msg": b"le".hex(), "verify_key": ALICE_PUB[:31].hex()},
        expect="BAD_KEY",
        flags=["BadKey", "CheckOrder"],
        rules=["D17"],
    )


def signing_keys(suite: SuiteBuilder, signed: bytes) -> None:
    """A signing key is a 32-byte seed, or a seed and its own public key; a signed message
    is signed anew."""
    cases: list[tuple[str, bytes, bytes, str]] = [
        ("sign-key-31-bytes", minimal(5), ALICE[:31], "BAD_KEY"),
        ("sign-key-33-bytes", minimal(5), ALICE + b"\x00", "BAD_KEY"),
        ("sign-key-wrong-public-half", minimal(5), ALICE + BOB_PUB, "BAD_KEY"),
        ("sign-key-64-bytes-matching", minimal(5), ALICE + ALICE_PUB, VALID),
        ("sign-resigns-signed", signed, BOB, VALID),
    ]
    for name, message, key, expect in cases:
        suite.case(
            name,
            words(name),
            op="sign",
            input={"msg": message.hex(), "sign_key": key.hex()},
            expect=expect,
            flags=["Signature"] if expect == VALID else ["BadKey"],
            rules=["D17"],
        )


def signed_message_kept(suite: SuiteBuilder, signed: bytes) -> None:
    """What serializing, parsing and incrementing a message signed by alice keeps of its
    signature, with her key to verify it, bob's, or a key to sign anew."""
    alice, msg = ALICE_PUB.hex(), signed.hex()
    cases: list[tuple[str, str, Json, list[str], list[str]]] = [
        ("serialize-verified-keeps-signature", "serialize", {"verify_key": alice}, [], ["D17"]),
        ("serialize-unverified-drops-signature", "serialize", {}, [], ["D17"]),
        ("serialize-resigns-with-key", "serialize", {"sign_key": BOB.hex()}, [], ["D17"]),
        (
            "serialize-verified-and-resigned",
            "serialize",
            {"verify_key": alice, "sign_key": BOB.hex()},
            [],
            ["D17"],
        ),
        ("parse-signed-unverified", "parse", {}, [], ["D17"]),
        ("parse-signed-verified", "parse", {"verify_key": alice}, [], ["D17"]),
        (
            "increment-signed",
            "increment",
            {"sign_key": ALICE.hex()},
            ["Hash"],
            ["D1", "D13", "D17"],
        ),
        ("increment-verified-unsigned", "increment", {"verify_key": alice}, [], ["D13", "D17"]),
    ]
    for name, op, keys, flags, rules in cases:
        suite.case(
            name,
            words(name),
            op=op,
            input={"msg": msg, **keys},
            expect=VALID,
            flags=["Signature", *flags],
            rules=rules,
        )
    suite.case(
        "parse-signed-wrong-key",
        "parse requiring bob's signature on alice's message",
        op="parse",
        input={"msg": msg, "verify_key": BOB_PUB.hex()},
        expect="SIG_INVALID",
        flags=["Signature", "WrongKey"],
        rules=["D17"],
    )


def new_signed(suite: SuiteBuilder) -> None:
    """New messages signed by a seed or a secret key (seed and public key)."""
    for name, key in [("new-signed-seed", ALICE), ("new-signed-secret-key", BOB + BOB_PUB)]:
        suite.case(
            name,
            f"{words(name)}: the hash covers the signature (D1)",
            op="new",
            input={"seqno": 7, "data": data_hex({b"k": b"v"}), "sign_key": key.hex()},
            expect=VALID,
            flags=["Signature", "Hash"],
            rules=["D1", "D17"],
        )


MERGE_MODES: list[tuple[Json, bool, str]] = [
    (
        {"verify_key": ALICE_PUB.hex(), "sign_key": ALICE.hex()},
        False,
        "verified and signed merge of forks signed by alice",
    ),
    (
        {"verify_key": ALICE_PUB.hex()},
        False,
        "verification without a signing key: the top message, unmerged (D17)",
    ),
    (
        {"verify_key": ALICE_PUB.hex(), "sign_key": ALICE.hex()},
        True,
        "a fork signed by bob is skipped when alice's signature is required",
    ),
    (
        {"sign_key": ALICE.hex()},
        True,
        "no verification: all forks merge, the result signed by alice",
    ),
]
"""The merge's keys, whether bob's fork is among the inputs, and what the case shows."""


def merges_of_signed_forks(suite: SuiteBuilder, rng: random.Random) -> None:
    """Random forks of a message signed by alice, with one signed by bob in half of them,
    merged under each of `MERGE_MODES` in turn."""
    for index in range(60):
        base_data = random_data(rng)
        base = new_message(rng.randint(1, 50), base_data, sign_key=ALICE)
        forks = [
            edited(base, random_edits(rng, base_data, 2), sign_key=ALICE)
            for _ in range(rng.randint(2, 3))
        ]
        forged = edited(base, random_edits(rng, base_data, 2), sign_key=BOB)
        keys, with_forged, comment = MERGE_MODES[index % 4]
        if with_forged:
            forks.append(forged)
        rng.shuffle(forks)
        suite.case(
            f"merge-signed-{index}",
            comment,
            op="merge",
            input={"msgs": [blob.hex() for blob in forks], **keys},
            expect=VALID,
            flags=["Signature", "Conflict"] + (["WrongKey"] if index % 4 == 2 else []),
            rules=["D14", "D15", "D17"],
        )


def build() -> SuiteBuilder:
    suite = new_suite(
        "signatures",
        "Ed25519 signatures (D17): `~` is the last key, exactly 64 bytes; the signed bytes"
        " are the serialization up to `1:~64:`; verification where required; serialization"
        " keeps a verified signature, re-signs with a key, drops an unverified one; merges"
        " verify their inputs and sign their result.",
    )
    rng = random.Random("swarmconf signatures v1")
    random_signatures(suite, rng)
    signed = sign_minimal(suite)
    verifications(suite, signed)
    signing_keys(suite, signed)
    signed_message_kept(suite, signed)
    new_signed(suite)
    merges_of_signed_forks(suite, rng)
    return suite
