"""Signatures (D17): signing, verification, what serialization keeps, merges that verify."""

from __future__ import annotations

import hashlib
import random
from typing import Any

import nacl.signing

from swarmconf.conformance.catalogue import Catalogue
from swarmconf.conformance.configmerge.suite import Suite, oracle
from swarmconf.conformance.configmerge.values import (
    data_hex,
    edited,
    minimal,
    new_message,
    random_data,
    random_edits,
    raw_message,
)


def seed(label: str) -> bytes:
    return hashlib.sha256(b"swarmconf vectors v1 signing " + label.encode()).digest()


def public(seed_bytes: bytes) -> bytes:
    return bytes(nacl.signing.SigningKey(seed_bytes).verify_key)


ALICE, BOB = seed("alice"), seed("bob")
ALICE_PUB, BOB_PUB = public(ALICE), public(BOB)


class Signing:
    """The signatures suite; the random families draw from one generator, in order."""

    def __init__(self) -> None:
        self.suite = Suite(
            "signatures",
            "Ed25519 signatures (D17): `~` is the last key, exactly 64 bytes; the signed bytes"
            " are the serialization up to `1:~64:`; verification where required; serialization"
            " keeps a verified signature, re-signs with a key, drops an unverified one; merges"
            " verify their inputs and sign their result.",
        )
        self.rng = random.Random("swarmconf signatures v1")
        request = {"op": "sign", "msg": minimal(5).hex(), "sign_key": ALICE.hex(), "lag": 5}
        self.signed = bytes.fromhex(oracle().handle(request)["result"]["msg"])
        """The minimal message signed by alice."""

    def named(
        self,
        name: str,
        op: str,
        inputs: dict[str, Any],
        flags: list[str],
        rules: list[str],
        expect: str = "valid",
    ) -> None:
        """A case whose comment is its name in words."""
        self.suite.add(
            name, name.replace("-", " "), op, inputs, flags=flags, rules=rules, expect=expect
        )


case = Catalogue[Signing]()


@case
def random_messages_signed_and_verified(s: Signing) -> None:
    """Each random message is signed, verified under the right and a wrong key, and tampered."""
    for index in range(120):
        message = new_message(s.rng.randint(1, 99), random_data(s.rng))
        signer = s.rng.choice([ALICE, BOB, ALICE + public(ALICE)])
        answer = s.suite.add(
            f"sign-random-{index}",
            "sign a random message (seed or seed+public key)",
            "sign",
            {"msg": message.hex(), "sign_key": signer.hex()},
            flags=["Signature", "RandomData"],
            rules=["D17"],
            expect="valid",
        )
        signed = bytes.fromhex(answer["result"]["msg"])
        right = ALICE_PUB if signer[:32] == ALICE else BOB_PUB
        wrong = BOB_PUB if right == ALICE_PUB else ALICE_PUB
        verified(s, index, signed, right, wrong)


def verified(s: Signing, index: int, signed: bytes, right: bytes, wrong: bytes) -> None:
    """A signed message verified under its signer's key and another, and with a bit flipped in
    its body or its signature."""
    s.suite.add(
        f"verify-random-{index}",
        "verify a signed message under its signer's key",
        "verify",
        {"msg": signed.hex(), "verify_key": right.hex()},
        flags=["Signature"],
        rules=["D17"],
        expect="valid",
    )
    s.suite.add(
        f"verify-wrong-key-{index}",
        "verify a signed message under another key",
        "verify",
        {"msg": signed.hex(), "verify_key": wrong.hex()},
        flags=["Signature", "WrongKey"],
        rules=["D17"],
        expect="SIG_INVALID",
    )
    position = s.rng.randrange(len(signed) - 70)
    flipped = bytearray(signed)
    flipped[position] ^= 0x01
    s.suite.add(
        f"verify-tampered-{index}",
        f"a signed message with bit 0 of byte {position} flipped",
        "verify",
        {"msg": bytes(flipped).hex(), "verify_key": right.hex()},
        flags=["Signature", "Tampered"],
        rules=["D10", "D17"],
    )
    sig_flip = bytearray(signed)
    sig_flip[-2 - s.rng.randrange(64)] ^= 0x80
    s.suite.add(
        f"verify-tampered-signature-{index}",
        "a signed message with one signature bit flipped",
        "verify",
        {"msg": bytes(sig_flip).hex(), "verify_key": right.hex()},
        flags=["Signature", "Tampered"],
        rules=["D17"],
        expect="SIG_INVALID",
    )


@case
def sign_minimal(s: Signing) -> None:
    s.suite.add(
        "sign-minimal",
        "sign the minimal message",
        "sign",
        {"msg": minimal(5).hex(), "sign_key": ALICE.hex()},
        flags=["Signature"],
        rules=["D17"],
        expect="valid",
    )


@case
def verify_without_a_signature(s: Signing) -> None:
    unsigned_extra = raw_message(5, lagged=[], diff={}, extra={b"x": 1})
    key = ALICE_PUB.hex()
    s.named(
        "verify-unsigned",
        "verify",
        {"msg": minimal(5).hex(), "verify_key": key},
        ["Signature"],
        ["D17"],
        "SIG_MISSING",
    )
    s.named(
        "verify-unsigned-extra",
        "verify",
        {"msg": unsigned_extra.hex(), "verify_key": key},
        ["Signature", "UnknownTopLevelKey"],
        ["D9", "D17"],
        "SIG_MISSING",
    )
    merged = {"msg": minimal(6, {b"a": 1}).hex(), "verify_key": BOB_PUB.hex()}
    s.named(
        "verify-unsigned-merged-signer-key", "verify", merged, ["Signature"], ["D17"], "SIG_MISSING"
    )


@case
def verify_bad_signatures(s: Signing) -> None:
    key = ALICE_PUB.hex()
    zero = raw_message(5, lagged=[], diff={}, sig=bytes(64))
    s.named(
        "verify-zero-signature",
        "verify",
        {"msg": zero.hex(), "verify_key": key},
        ["Signature"],
        ["D17"],
        "SIG_INVALID",
    )
    moved = raw_message(6, lagged=[], diff={}, sig=s.signed[-65:-1])
    s.named(
        "verify-signature-moved",
        "verify",
        {"msg": moved.hex(), "verify_key": key},
        ["Signature", "Tampered"],
        ["D17"],
        "SIG_INVALID",
    )
    malformed = raw_message(5, lagged=[], diff={}, sig=bytes(63))
    s.named(
        "verify-malformed-signature",
        "verify",
        {"msg": malformed.hex(), "verify_key": key},
        ["Signature"],
        ["D17"],
        "SIG_MALFORMED",
    )


@case
def verify_bad_keys(s: Signing) -> None:
    for name, key in [
        ("verify-key-31-bytes", ALICE_PUB[:31]),
        ("verify-key-64-bytes", ALICE + ALICE_PUB),
        ("verify-key-empty", b""),
    ]:
        inputs = {"msg": s.signed.hex(), "verify_key": key.hex()}
        s.named(name, "verify", inputs, ["BadKey"], ["D17"], "BAD_KEY")


@case
def signing_keys(s: Signing) -> None:
    """A signing key is a 32-byte seed, or a seed and its own public key."""
    for name, key, refusal in [
        ("sign-key-31-bytes", ALICE[:31], "BAD_KEY"),
        ("sign-key-33-bytes", ALICE + b"\x00", "BAD_KEY"),
        ("sign-key-wrong-public-half", ALICE + BOB_PUB, "BAD_KEY"),
        ("sign-key-64-bytes-matching", ALICE + ALICE_PUB, None),
        ("sign-resigns-signed", BOB, None),
    ]:
        source = s.signed if name == "sign-resigns-signed" else minimal(5)
        inputs = {"msg": source.hex(), "sign_key": key.hex()}
        flags = ["BadKey"] if refusal else ["Signature"]
        s.named(name, "sign", inputs, flags, ["D17"], refusal or "valid")


@case
def serialize_keeps_verified_signatures(s: Signing) -> None:
    for name, inputs in [
        ("serialize-verified-keeps-signature", {"verify_key": ALICE_PUB.hex()}),
        ("serialize-unverified-drops-signature", {}),
        ("serialize-resigns-with-key", {"sign_key": BOB.hex()}),
        ("serialize-verified-and-resigned", {"verify_key": ALICE_PUB.hex(), "sign_key": BOB.hex()}),
    ]:
        s.named(name, "serialize", {"msg": s.signed.hex(), **inputs}, ["Signature"], ["D17"])


@case
def parse_signed(s: Signing) -> None:
    for name, inputs in [
        ("parse-signed-unverified", {}),
        ("parse-signed-verified", {"verify_key": ALICE_PUB.hex()}),
    ]:
        s.named(name, "parse", {"msg": s.signed.hex(), **inputs}, ["Signature"], ["D17"])
    s.suite.add(
        "parse-signed-wrong-key",
        "parse requiring bob's signature on alice's message",
        "parse",
        {"msg": s.signed.hex(), "verify_key": BOB_PUB.hex()},
        flags=["Signature", "WrongKey"],
        rules=["D17"],
        expect="SIG_INVALID",
    )


@case
def increment_signed(s: Signing) -> None:
    msg = s.signed.hex()
    s.named(
        "increment-signed",
        "increment",
        {"msg": msg, "sign_key": ALICE.hex()},
        ["Signature", "Hash"],
        ["D1", "D13", "D17"],
    )
    s.named(
        "increment-verified-unsigned",
        "increment",
        {"msg": msg, "verify_key": ALICE_PUB.hex()},
        ["Signature"],
        ["D13", "D17"],
    )


@case
def new_signed(s: Signing) -> None:
    for name, key in [("new-signed-seed", ALICE), ("new-signed-secret-key", BOB + BOB_PUB)]:
        s.suite.add(
            name,
            f"{name.replace('-', ' ')}: the hash covers the signature (D1)",
            "new",
            {"seqno": 7, "data": data_hex({b"k": b"v"}), "sign_key": key.hex()},
            flags=["Signature", "Hash"],
            rules=["D1", "D17"],
            expect="valid",
        )


MERGE_MODES = [
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


@case
def merges_of_signed_forks(s: Signing) -> None:
    for index in range(60):
        base_data = random_data(s.rng)
        base = new_message(s.rng.randint(1, 50), base_data, sign_key=ALICE)
        forks = [
            edited(base, random_edits(s.rng, base_data, 2), sign_key=ALICE)
            for _ in range(s.rng.randint(2, 3))
        ]
        forged = edited(base, random_edits(s.rng, base_data, 2), sign_key=BOB)
        inputs, with_forged, comment = MERGE_MODES[index % 4]
        if with_forged:
            forks.append(forged)
        s.rng.shuffle(forks)
        s.suite.add(
            f"merge-signed-{index}",
            comment,
            "merge",
            {"msgs": [blob.hex() for blob in forks], **inputs},
            flags=["Signature", "Conflict"] + (["WrongKey"] if index % 4 == 2 else []),
            rules=["D14", "D15", "D17"],
            expect="valid",
        )


def build() -> Suite:
    return case.fill(Signing()).suite
